#!/usr/bin/env bash
# Call c: the commit's build (bins18: the rtopk binary and the GPU tests; c18: the wheel) — its
# GPU tests (cluster rows, whose shapes of 8 blocks and of wide clusters for plain rows are
# asserted; the guessed bracket, the floor, the program); issue 32's grids beside FlashInfer
# and CUB (bench/peers, built here): f32 through bins18 and through HEAD's bins14 in turn,
# twice (grid_compare.py), bf16 through c18; table.md = large_k_table.py over the commit's.
set -uo pipefail
source bench/device_call.sh
wheel c18; bins 14; bins 18
L=/tmp/logs; mkdir -p $L
T="env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t /tmp/bins18/gpu --ignored"
step gpu_cluster 200 $T cluster_rows
step gpu_floor 100 $T --exact many_rows_that_take_the_floor_match_bisect
step gpu_steps 150 $T --exact every_step_kind_of_the_program_matches_bisect_and_the_simulators_program
peers_run $L
for r in 1 2; do
  for b in 18 14; do
    step grid_b${b}_r$r 200 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b /tmp/bins$b/rtopk bench cuda --grid large-k --reps 20 --json
  done
done
grep -v '^\s*$' $OUT/grid_b18_r1.txt | sed -n '/^\[/,$p' > $OUT/rtopk_large_k.json
$PY results/cuda/2026-12-06-hist32-h100/grid_compare.py $OUT/grid_b14_r1.txt $OUT/grid_b14_r2.txt $OUT/grid_b18_r1.txt $OUT/grid_b18_r2.txt v > $OUT/grid_compare.txt
step split_bf16 120 env $(build_env c18) $PY bench/split_rows.py --out $OUT/split_bf16 --grid indexer,sampler,vector-k --dtype bf16 --reps 15
$PY bench/large_k_table.py --rtopk $OUT/rtopk_large_k.json --split $OUT/split_bf16/*.json --peers $OUT/peers.jsonl > $OUT/table.md 2>&1
cp $OUT/*.txt $L/ 2>/dev/null
tar czf $OUT/logs.tgz -C $L . 2>/dev/null
cd $OUT && find . -maxdepth 1 -name "*.txt" ! -name steps.txt ! -name device.txt ! -name grid_compare.txt -delete
cat steps.txt; tail -1 grid_compare.txt; head -8 table.md
