#!/usr/bin/env bash
# Issue 21, third pass, call G: the RTop-K grid and Appendix B, the previous build (d4e3d8b) and
# 1cf458c's binary compiling the working tree's kernels (--kernel-dir: IdxOut passed by value,
# made at the selection from the row's place) in turn; then the split regimes with those kernels.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
out=$OUT/r; mkdir -p $out
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $out/device.txt
kd=(--kernel-dir crates/rtopk-cuda/kernels)
s=$SECONDS
for g in rtopk appendix-b; do
  devbin/rtopk_prev bench cuda --grid $g --json > $out/grid_prev_$g.json 2> $out/grid_prev_$g.log
  devbin/rtopk bench cuda --grid $g --json "${kd[@]}" > $out/grid_new_$g.json 2> $out/grid_new_$g.log
done
echo "grids: $((SECONDS-s)) s"
python3 -c "import json,sys; json.dump(sum((json.load(open(f)) for f in sys.argv[2:]), []), open(sys.argv[1], 'w'))" $out/grid_prev.json $out/grid_prev_rtopk.json $out/grid_prev_appendix-b.json
python3 -c "import json,sys; json.dump(sum((json.load(open(f)) for f in sys.argv[2:]), []), open(sys.argv[1], 'w'))" $out/grid_new.json $out/grid_new_rtopk.json $out/grid_new_appendix-b.json
python3 bench/ab_compare.py $out/grid_prev.json $out/grid_new.json --exact-only --record results/cuda/2026-11-21-bench-vs-torch-h100/rtopk_cuda.json > $out/grid_ab.txt 2>&1; tail -3 $out/grid_ab.txt
devbin/rtopk bench cuda --grid split,vector,wide --reps 15 --json "${kd[@]}" > $out/rtopk_regimes.json 2> $out/rtopk_regimes.log; echo "regimes rc=$?"
head -1 $out/grid_new_rtopk.log
cd $OUT && tar czf r.tgz r && rm -rf r
