#!/usr/bin/env bash
# Call b: the committed rule (equal chunks of 7/8 to 5/4 of the power of two, at most 16384;
# bins28, wheel n5): its GPU tests of split rows; the default against the plan before
# (bins25) on the cells it moves, in turn, twice; then bins28 and n5 beside FlashInfer and CUB
# (bench/peers, built here) on issue 32's grids (table.md: f32 through bins28, bf16 through n5
# with torch.topk), and the f32 indexer grid through n5 beside torch.topk (every answer
# checked against torch.topk's).
set -u
source bench/device_call.sh
for b in 25 28; do bins $b; done
wheel n5
step gpu_split 120 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_b28 /tmp/bins28/gpu --include-ignored \
    --test-threads 1 split every_step_kind floor
for r in 1 2; do
    for b in 25 28; do
        for n in 32 96 256; do
            for m in 100352 128256; do sweep_row $r b$b /tmp/bins$b/rtopk $n $m 512,1024,2048; done
            for m in 100000 151936 500000; do sweep_row $r b$b /tmp/bins$b/rtopk $n $m 512; done
        done
        sweep_row $r b$b /tmp/bins$b/rtopk 1024 128256 512,1024,2048
    done
    echo "round $r done $SECONDS s" >> $OUT/steps.txt
done
L=/tmp/logs_eb; mkdir -p $L
grids_beside_peers $L b28 /tmp/bins28/rtopk n5
cp $OUT/*.txt $L/ 2>/dev/null
tar czf $OUT/logs.tgz -C $L . 2>/dev/null
cd $OUT && rm -f grid_b28.txt && find . -maxdepth 1 -name "*.txt" ! -name steps.txt ! -name device.txt ! -name sweep.txt -delete
cat steps.txt; head -8 table.md
