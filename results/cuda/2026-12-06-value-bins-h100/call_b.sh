#!/usr/bin/env bash
# Call b (run in the session after call a; bins32 and wheel n6 built from 97ea7e6): the
# committed build's GPU tests (the parameter struct's new field reaches every launch) but the
# full equivalence sweep; its default against bins28 (the build before the bins) on call a's
# cells, in turn, once (f32, median of 30), and a row of ReLU's zeros; then bins32 and n6 beside
# FlashInfer and CUB on issue 32's grids (table.md: f32 through bins32, bf16 through n6 beside
# torch.topk) and the f32 indexer grid through n6 beside torch.topk (every answer checked).
set -u
source bench/device_call.sh
bins 28
bins 32
wheel n6
step gpu 200 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_b32 /tmp/bins32/gpu --ignored --test-threads 1 \
    --skip kernel_matches_bisect_and_the_simulator --skip a_shipped_unit
for r in 1; do
    for v in 28 32; do
        for c in "96 49152 512,1024,2048" "96 100000 512,2048" "256 49152 2048" "96 16384 512,2048" \
                 "128 32000 20,1024" "65536 4096 128,512" "65536 8192 512" "16384 16384 256"; do
            set -- $c
            sweep_row $r b$v /tmp/bins$v/rtopk $1 $2 $3
        done
        mkdir -p $OUT/relu
        OUT=$OUT/relu sweep_row $r b$v /tmp/bins$v/rtopk 96 49152 1024 --dist relu
    done
    echo "round $r done $SECONDS s" >> $OUT/steps.txt
done
for f in . relu; do
    echo "== $f" >> $OUT/compare.txt
    $PY results/cuda/2026-12-06-hist32-h100/sweep_compare.py $OUT/$f/sweep.txt b28 b32 >> $OUT/compare.txt 2>&1
done
L=/tmp/logs_vb; mkdir -p $L
grids_beside_peers $L b32 /tmp/bins32/rtopk n6
cp $OUT/*.txt $L/ 2>/dev/null
tar czf $OUT/logs.tgz -C $L . 2>/dev/null
cd $OUT && rm -f grid_b32.txt && find . -maxdepth 1 -name "*.txt" ! -name steps.txt ! -name device.txt \
    ! -name sweep.txt ! -name compare.txt ! -name gpu.txt -delete
cat steps.txt compare.txt; head -12 table.md
