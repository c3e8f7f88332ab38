#!/usr/bin/env bash
# Call c (the session's last ~200 s of device time): the GPU test of the
# second stage that gathers (bins34), then bins34 against bins35 (26fbcee) in turn once on
# four split cells (f32, median of 30) where the call has taken at most 110 s.
set -u
source bench/device_call.sh
bins 34
bins 35
step gpu 100 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_b34 /tmp/bins34/gpu --ignored --test-threads 1 \
    a_second_stage_that_gathers
if [ $SECONDS -le 110 ]; then
    for v in 35 34; do
        for c in "96 49152 512,1024,2048" "256 49152 2048" "96 100000 1024" "65536 4096 512"; do
            set -- $c
            sweep_row 1 b$v /tmp/bins$v/rtopk $1 $2 $3
        done
    done
    $PY results/cuda/2026-12-06-hist32-h100/sweep_compare.py $OUT/sweep.txt b35 b34 > $OUT/compare.txt 2>&1
fi
cat $OUT/steps.txt $OUT/compare.txt 2>/dev/null; tail -5 $OUT/gpu.txt
