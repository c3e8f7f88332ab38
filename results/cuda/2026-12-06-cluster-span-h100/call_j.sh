#!/usr/bin/env bash
# Call j: issue 32's grids beside FlashInfer and CUB with the final build (bins21): the peers
# built here, f32 through bins21; bf16 rows plan and run as in call c (the change is f32's), so
# table.md takes call c's bf16 runs (c/split_bf16/) beside this call's peers.
set -uo pipefail
source bench/device_call.sh
bins 21
L=/tmp/logs; mkdir -p $L
peers_run $L
step grid_b21 100 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_21 /tmp/bins21/rtopk bench cuda --grid large-k --reps 20 --json
grep -v '^\s*$' $OUT/grid_b21.txt | sed -n '/^\[/,$p' > $OUT/rtopk_large_k.json
$PY bench/large_k_table.py --rtopk $OUT/rtopk_large_k.json --split results/cuda/2026-12-06-cluster-span-h100/c/split_bf16/*.json --peers $OUT/peers.jsonl > $OUT/table.md 2>&1
rm -f $OUT/grid_b21.txt $OUT/peers_*.txt
cat $OUT/steps.txt; head -8 $OUT/table.md
