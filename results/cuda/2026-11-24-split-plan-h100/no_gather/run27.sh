#!/usr/bin/env bash
# Issue 21, third pass, call F (commit 1cf458c: no gather launch, every stage writes the caller's
# indices): correctness against the oracle (verify --quick cold, the GPU tests but the long f32
# sweep, split shapes under compute-sanitizer's four tools), issue 21's regimes with torch and
# the peers in this call, and the RTop-K grid and Appendix B with the previous build (d4e3d8b,
# `rtopk_prev`) and this one.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
out=$OUT/r; mkdir -p $out
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $out/device.txt
python3 -m pip install -q --no-deps --target /tmp/site27 devbin/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site27
( OUT_DIR=$out/peers BUILD_ONLY=1 bash bench/peers/run.sh > $out/peers_build.txt 2>&1; echo "peer build rc=$?" ) &
bpid=$!
step() { local name=$1; shift; local s=$SECONDS; "$@" > $out/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s"; tail -n ${TAILN:-3} $out/$name.txt; }
TAILN=5 step verify_quick env CUDA_CACHE_DISABLE=1 RTOPK_CUDA_PTX_CACHE=$(mktemp -d) devbin/rtopk verify cuda --quick
grep -c "identical" $out/verify_quick.txt; grep -i "differ\|mismatch\|error" $out/verify_quick.txt | head -3
for t in devbin/tests/*; do step tests_$(basename $t | cut -d- -f1) $t --include-ignored --test-threads 1 --skip kernel_matches_bisect_and_the_simulator_in_every_family_shape_and_mode; done
for tool in memcheck racecheck synccheck initcheck; do
  TAILN=2 step sanitizer_${tool}_split compute-sanitizer --tool $tool --error-exitcode 9 python3 bench/sanitize_split.py
done
wait $bpid; tail -1 $out/peers_build.txt
s=$SECONDS
devbin/rtopk bench cuda --grid split,vector,wide --reps 15 --json > $out/rtopk_regimes.json 2> $out/rtopk_regimes.log; echo "regimes rc=$? $((SECONDS-s)) s"
TAILN=4 step split_rows timeout 150 python3 bench/split_rows.py --out $out/torch --reps 15
OUT_DIR=$out/peers timeout 150 bash bench/peers/run.sh --reps 20 > $out/peers_run.txt 2>&1; echo "peers rc=$? $((SECONDS-s)) s"
python3 bench/regimes_table.py $out/rtopk_regimes.json $out/torch/split_rows.json $out/peers/peers.jsonl > $out/table.md 2>&1; head -12 $out/table.md
for g in rtopk appendix-b; do
  devbin/rtopk_prev bench cuda --grid $g --json > $out/grid_prev_$g.json 2> $out/grid_prev_$g.log
  devbin/rtopk bench cuda --grid $g --json > $out/grid_new_$g.json 2> $out/grid_new_$g.log
done
echo "grids: $((SECONDS-s)) s"
python3 -c "import json,sys; json.dump(sum((json.load(open(f)) for f in sys.argv[2:]), []), open(sys.argv[1], 'w'))" $out/grid_prev.json $out/grid_prev_rtopk.json $out/grid_prev_appendix-b.json
python3 -c "import json,sys; json.dump(sum((json.load(open(f)) for f in sys.argv[2:]), []), open(sys.argv[1], 'w'))" $out/grid_new.json $out/grid_new_rtopk.json $out/grid_new_appendix-b.json
TAILN=3 step grid_ab python3 bench/ab_compare.py $out/grid_prev.json $out/grid_new.json --exact-only --record results/cuda/2026-11-21-bench-vs-torch-h100/rtopk_cuda.json
cd $OUT && tar czf r.tgz r && rm -rf r
