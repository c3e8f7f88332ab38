#!/usr/bin/env bash
# Call b: the committed build (bins31: value bins where the plan's Plan::value_bins lets them,
# launches of at most 16384 blocks; the parameter struct's new field) — the GPU tests of every
# family but the full equivalence sweep, then its default against bins28's (the build before)
# on the cells of call a, in turn, once (f32, median of 30), and a row of ReLU's zeros.
set -u
source bench/device_call.sh
bins 28
bins 31
step gpu 110 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_31 /tmp/bins31/gpu --ignored --test-threads 1 --skip kernel_matches_bisect_and_the_simulator --skip a_shipped_unit
for r in 1; do
    for v in 28 31; do
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
    $PY results/cuda/2026-12-06-hist32-h100/sweep_compare.py $OUT/$f/sweep.txt b28 b31 >> $OUT/compare.txt 2>&1
done
cat $OUT/steps.txt $OUT/compare.txt
