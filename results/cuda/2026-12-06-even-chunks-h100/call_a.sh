#!/usr/bin/env bash
# Call a: split rows whose power-of-two chunk leaves a last chunk (a launch of its own) on
# equal chunks that cover the row (bins26, wheel n4) against the committed plan (bins25), in
# turn, twice; chunks of up to half the row (bins27) on rows of 49152; bins26's GPU tests of
# split rows; then bins26 and n4 beside FlashInfer and CUB (bench/peers, built here) on issue
# 32's grids (table.md: f32 through bins26, bf16 through n4 with torch.topk), and the f32
# indexer grid through n4 beside torch.topk (every answer checked against torch.topk's).
set -u
source bench/device_call.sh
for b in 25 26 27; do bins $b; done
wheel n4
step gpu_split 120 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_b26 /tmp/bins26/gpu --include-ignored \
    --test-threads 1 split every_step_kind floor
for r in 1 2; do
    for b in 25 26; do
        for n in 32 96 256; do
            for m in 100000 100352 128256 151936; do
                sweep_row $r b$b /tmp/bins$b/rtopk $n $m 50,512,1024,2048
            done
        done
        for n in 8 32 96; do sweep_row $r b$b /tmp/bins$b/rtopk $n 500000 512,1024,2048; done
        sweep_row $r b$b /tmp/bins$b/rtopk 1024 100000 50,512,2048
    done
    for b in 25 27; do
        for n in 32 96 256; do sweep_row $r b$b /tmp/bins$b/rtopk $n 49152 512,1024,2048; done
    done
    echo "round $r done $SECONDS s" >> $OUT/steps.txt
done
L=/tmp/logs_ea; mkdir -p $L
grids_beside_peers $L b26 /tmp/bins26/rtopk n4
cp $OUT/*.txt $L/ 2>/dev/null
tar czf $OUT/logs.tgz -C $L . 2>/dev/null
cd $OUT && rm -f grid_b26.txt && find . -maxdepth 1 -name "*.txt" ! -name steps.txt ! -name device.txt ! -name sweep.txt -delete
cat steps.txt; head -8 table.md
