#!/usr/bin/env bash
# Call e: the final build (bins25, n3: the radix tier for f32 rows of 8-16 x 393216-2^20 and
# for fewer rows of 786432-2^20, 16-bit rows of the first tier on the default) beside
# FlashInfer and CUB (bench/peers, built here) on issue 32's grids, f32 through bins25 and
# bf16 through n3 (table.md); the tier's grid and the large-k sorts against torch.topk.
set -uo pipefail
source bench/device_call.sh
wheel n3; bins 25
L=/tmp/logs_e; mkdir -p $L
peers_run $L
step grid_b25 100 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_25 /tmp/bins25/rtopk bench cuda --grid large-k --reps 20 --json
grep -v '^\s*$' $OUT/grid_b25.txt | sed -n '/^\[/,$p' > $OUT/rtopk_large_k.json
step split_bf16 150 env $(build_env n3) $PY bench/split_rows.py --out $OUT/split_bf16 --grid indexer,sampler,vector-k --dtype bf16 --reps 15
$PY bench/large_k_table.py --rtopk $OUT/rtopk_large_k.json --split $OUT/split_bf16/*.json --peers $OUT/peers.jsonl > $OUT/table.md 2>&1
for d in f32 bf16; do
    step mid_$d 100 env $(build_env n3) $PY bench/split_rows.py --out $OUT/mid_$d --grid radix-mid --dtype $d --reps 15
done
step sort_n3 120 env $(build_env n3) $PY bench/sort_step.py --grid large-k,large-k-many --reps 15 --out $OUT/sort_n3.json
cp $OUT/*.txt $L/ 2>/dev/null; cp -r $OUT/mid_* $OUT/sort_n3.json $L/ 2>/dev/null
tar czf $OUT/logs.tgz -C $L . 2>/dev/null
cd $OUT && rm -rf mid_* sort_n3.json grid_b25.txt && find . -maxdepth 1 -name "*.txt" ! -name steps.txt ! -name device.txt -delete
cat steps.txt; head -8 table.md
