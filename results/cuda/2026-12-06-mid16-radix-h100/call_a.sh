#!/usr/bin/env bash
# Call a: 16-bit rows of the radix select's 8-16 row tier where their split would leave a last
# chunk (bins33, wheel n7) against the build before (wheel n6 = 97ea7e6): the radix GPU tests
# on bins33; bench/split_rows.py --grid radix-mid16 through both wheels in turn (bf16 twice,
# f16 once where the call has taken at most 120 s; every answer checked against torch.topk); then issue 32's grids beside FlashInfer
# and CUB (bf16 through n7 with torch.topk, f32 through bins33) into table.md, where the call
# has taken at most 150 s so far (bf16's second round: 200 s). Everything but steps.txt,
# compare.txt and table.md comes back in logs.tgz (a call returns at most 8 files).
set -u
source bench/device_call.sh
bins 33
wheel n6
wheel n7
step gpu_radix 90 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_b33 /tmp/bins33/gpu --ignored --test-threads 1 radix
L=/tmp/logs_m16; mkdir -p $L
for r in 1 2; do
    for d in bf16 f16; do
        [ $d = f16 ] && [ $r = 2 ] && continue
        [ $r = 2 ] && [ $SECONDS -gt 200 ] && continue
        [ $d = f16 ] && [ $SECONDS -gt 120 ] && continue
        for w in n6 n7; do
            step mid16_${d}_${w}_$r 150 env $(build_env $w) $PY bench/split_rows.py \
                --out $L/mid16_${d}_${w}_$r --grid radix-mid16 --dtype $d --reps 15
        done
    done
done
for d in bf16 f16; do
    echo "== $d" >> $OUT/compare.txt
    $PY results/cuda/2026-12-06-mid16-radix-h100/compare.py --old $L/mid16_${d}_n6_*/*.json \
        --new $L/mid16_${d}_n7_*/*.json >> $OUT/compare.txt 2>&1
done
if [ $SECONDS -gt 150 ]; then
    echo "peers skipped at $SECONDS s (the call's device time)" >> $OUT/steps.txt
    cp $OUT/*.txt $L/
    cd $OUT && find . -maxdepth 1 -name "*.txt" ! -name steps.txt ! -name compare.txt -delete
    tar czf logs.tgz -C $L . && cat steps.txt compare.txt
    exit 0
fi
peers_run $L
step grid_b33 120 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_b33 /tmp/bins33/rtopk bench cuda \
    --grid large-k --reps 20 --json
grep -v '^\s*$' $OUT/grid_b33.txt | sed -n '/^\[/,$p' > $L/rtopk_large_k.json
step split_bf16 150 env $(build_env n7) $PY bench/split_rows.py --out $L/split_bf16 \
    --grid indexer,sampler,vector-k --dtype bf16 --reps 15
$PY bench/large_k_table.py --rtopk $L/rtopk_large_k.json --split $L/split_bf16/*.json \
    --peers $OUT/peers.jsonl > $OUT/table.md 2>&1
mv $OUT/peers.jsonl $L/
cp $OUT/*.txt $L/ 2>/dev/null
cd $OUT && find . -maxdepth 1 -name "*.txt" ! -name steps.txt ! -name compare.txt -delete
tar czf logs.tgz -C $L .
ls $OUT; cat steps.txt compare.txt; head -9 table.md
