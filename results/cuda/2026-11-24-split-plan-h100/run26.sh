#!/usr/bin/env bash
# Issue 21, third pass, call E (commit 36da4f3): the price of a per-row barrier across blocks
# (bench/cross_block_rounds.py), and the RTop-K grid and Appendix B with the old build (5a81af9)
# and this one in one call, against the 2026-11-21 record (their routes never split: the
# change must leave them as they were).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
out=$OUT/r; mkdir -p $out
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $out/device.txt
step() { local name=$1; shift; local s=$SECONDS; "$@" > $out/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s"; tail -n ${TAILN:-3} $out/$name.txt; }
# cross_block: run in the call before this one (the same script), recorded from there
: TAILN=6 step cross_block timeout 120 python3 bench/cross_block_rounds.py --out $out/cross_block.json
s=$SECONDS
# the old build takes one grid per run: each grid with each build, in turn
for g in rtopk appendix-b; do
  devbin/rtopk_old bench cuda --grid $g --json > $out/grid_old_$g.json 2> $out/grid_old_$g.log; echo "old $g rc=$? $((SECONDS-s)) s"
  devbin/rtopk bench cuda --grid $g --json > $out/grid_new_$g.json 2> $out/grid_new_$g.log; echo "new $g rc=$? $((SECONDS-s)) s"
done
python3 -c "import json,sys; json.dump(sum((json.load(open(f)) for f in sys.argv[2:]), []), open(sys.argv[1], 'w'))" $out/grid_old.json $out/grid_old_rtopk.json $out/grid_old_appendix-b.json
python3 -c "import json,sys; json.dump(sum((json.load(open(f)) for f in sys.argv[2:]), []), open(sys.argv[1], 'w'))" $out/grid_new.json $out/grid_new_rtopk.json $out/grid_new_appendix-b.json
TAILN=12 step grid_ab python3 bench/ab_compare.py $out/grid_old.json $out/grid_new.json --exact-only --record results/cuda/2026-11-21-bench-vs-torch-h100/rtopk_cuda.json
cd $OUT && tar czf r.tgz r && rm -rf r
