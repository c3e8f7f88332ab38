#!/usr/bin/env bash
# Call b (call_a.sh trimmed to the session's last device time, after eleven requests found no
# machine): the GPU tests of the second stage that gathers first (bins34), then bins34 against
# bins35 (26fbcee, the build before) in turn on the split cells whose second stage is block
# rows and on controls that never gather (`rtopk bench cuda`, f32, median of 30; a second
# round where the call has taken at most 120 s). Logs in logs.tgz.
set -u
source bench/device_call.sh
bins 34
bins 35
L=/tmp/logs_gb; mkdir -p $L
step gpu 110 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_b34 /tmp/bins34/gpu --ignored --test-threads 1 \
    a_second_stage_that_gathers every_step_kind
cells=("96 49152 512,1024,2048" "256 49152 1024,2048" "96 100000 512,1024,2048"
       "256 100000 2048" "96 163840 2048" "128 100352 1024" "65536 4096 512" "16384 16384 256")
for r in 1 2; do
    [ $r = 2 ] && [ $SECONDS -gt 120 ] && continue
    for v in 35 34; do
        for c in "${cells[@]}"; do
            set -- $c
            sweep_row $r b$v /tmp/bins$v/rtopk $1 $2 $3
        done
    done
    echo "round $r done $SECONDS s" >> $OUT/steps.txt
done
$PY results/cuda/2026-12-06-hist32-h100/sweep_compare.py $OUT/sweep.txt b35 b34 > $OUT/compare.txt 2>&1
for b in 34 35; do /tmp/bins$b/rtopk plan --n 96 --m 49152 -k 1024 >> $L/plans.txt 2>&1; done
cp $OUT/*.txt $L/ 2>/dev/null
tar czf $OUT/logs.tgz -C $L .
cat $OUT/steps.txt $OUT/compare.txt; tail -5 $OUT/gpu.txt
