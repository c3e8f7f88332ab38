#!/usr/bin/env bash
# Call a: f32 block rows held in registers searched from a histogram of their values (the
# working tree's kernels, through --kernel-dir) against the binary's kernels (bins28, the plan
# of f5f9b40 = HEAD's): first the GPU test of the bins
# (bins30: this build's test binary), every f32 answer of `rtopk verify cuda --quick` with the variant,
# then split rows (the lost indexer cells), whole block rows, sampler rows and Appendix B's
# block rows, in turn, twice (f32, median of 30); then rows of heavy ties and of ReLU's zeros.
set -u
source bench/device_call.sh
bins 28
bins 30
KV=crates/rtopk-cuda/kernels
B=/tmp/bins28/rtopk
step gpu_bins 150 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_b30 /tmp/bins30/gpu --ignored --test-threads 1 f32_rows_from_value_bins
step verify_new 150 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_new $B verify cuda --quick --dtype float32 --kernel-dir $KV
for r in 1 2; do
    for v in old new; do
        extra=(); [ $v = new ] && extra=(--kernel-dir $KV)
        for c in "96 49152 512,1024,2048" "96 100000 512,1024,2048" "256 49152 1024,2048" "256 100000 2048" \
                 "32 163840 2048" "8 49152 1024" "96 16384 512,2048" "256 16384 1024" "128 32000 20,1024" \
                 "16 100352 64,1024" "1 100000 2048" "65536 4096 128,512" "65536 8192 512" "16384 16384 50,256"; do
            set -- $c
            sweep_row $r $v $B $1 $2 $3 "${extra[@]}"
        done
    done
    # inputs with heavy ties (six values) and ReLU's zeros: the bins' atomics meet on few words
    mkdir -p $OUT/ties $OUT/relu
    for v in old new; do
        extra=(); [ $v = new ] && extra=(--kernel-dir $KV)
        for d in ties relu; do
            for c in "96 49152 1024" "96 16384 2048" "65536 4096 512"; do
                set -- $c
                OUT=$OUT/$d sweep_row $r $v $B $1 $2 $3 --dist $d "${extra[@]}"
            done
        done
    done
    echo "round $r done $SECONDS s" >> $OUT/steps.txt
done
for f in . ties relu; do
    echo "== $f" >> $OUT/compare.txt
    $PY results/cuda/2026-12-06-hist32-h100/sweep_compare.py $OUT/$f/sweep.txt old new >> $OUT/compare.txt 2>&1
done
cat $OUT/steps.txt $OUT/compare.txt
