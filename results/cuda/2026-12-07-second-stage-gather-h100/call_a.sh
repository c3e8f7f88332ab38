#!/usr/bin/env bash
# Call a: a split's second stage of block rows that gathers its own indices (bins34 and wheel
# g1, built from the change) against the build before (bins35, 26fbcee): both in turn, twice,
# on the split cells whose second stage is block rows and on controls that never gather
# (`rtopk bench cuda`, f32, median of 30; sweep.txt, compare.txt); the GPU tests of the split
# programs on bins34; then issue 32's grids beside FlashInfer and CUB (f32 through bins34,
# bf16 through g1 beside torch.topk, every answer checked) where the call has taken at most
# 230 s. Everything but steps.txt, sweep.txt, compare.txt, gpu.txt and table.md comes back in
# logs.tgz (a call returns at most 8 files).
set -u
source bench/device_call.sh
bins 34
bins 35
wheel g1
L=/tmp/logs_ga; mkdir -p $L
cells=("96 49152 512,1024,2048" "256 49152 512,1024,2048" "96 100000 512,1024,2048"
       "256 100000 512,1024,2048" "96 163840 512,2048" "128 100352 1024" "32 500000 1024"
       "65536 4096 128,512" "65536 8192 512" "16384 16384 256")
for r in 1 2; do
    for v in 35 34; do
        for c in "${cells[@]}"; do
            set -- $c
            sweep_row $r b$v /tmp/bins$v/rtopk $1 $2 $3
        done
    done
    echo "round $r done $SECONDS s" >> $OUT/steps.txt
done
$PY results/cuda/2026-12-06-hist32-h100/sweep_compare.py $OUT/sweep.txt b35 b34 > $OUT/compare.txt 2>&1
step gpu 140 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_b34 /tmp/bins34/gpu --ignored --test-threads 1 \
    a_second_stage_that_gathers every_step_kind f32_rows_from_value_bins many_rows_that_take_the_floor \
    partial_blocks sixteen_bit_rows_match every_strategy_matches
for b in 34 35; do /tmp/bins$b/rtopk plan --n 96 --m 49152 -k 1024 >> $L/plans.txt 2>&1; done
if [ $SECONDS -le 230 ]; then
    grids_beside_peers $L b34 /tmp/bins34/rtopk g1
else
    echo "grids skipped at $SECONDS s" >> $OUT/steps.txt
fi
cp $OUT/*.txt $L/ 2>/dev/null
[ -f $OUT/peers.jsonl ] && mv $OUT/peers.jsonl $L/
cd $OUT && find . -maxdepth 1 -name "*.txt" ! -name steps.txt ! -name device.txt ! -name sweep.txt \
    ! -name compare.txt ! -name gpu.txt -delete
tar czf logs.tgz -C $L .
ls; cat steps.txt compare.txt; tail -5 gpu.txt; head -9 table.md 2>/dev/null
