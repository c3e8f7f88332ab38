#!/bin/bash
# On the device, from the repository root: w2's tree (call_a.sh) checked against the CPU —
# devbin/bins.tar.xz holds its rtopk, rtopk-cuda's gpu and rtopk's gpu_ragged test binaries:
# the 16-bit and integer every-strategy tests, gpu_ragged, `rtopk verify cuda --quick --dtype
# bfloat16` (values, indices and iteration counts against bisect and warp-sim).
set -u
PY=/opt/torch/.venv/bin/python3
D=results/cuda/2026-12-05-bf16-value-h200
SHARE=results/cuda/2026-12-04-adjacent-keys-h200/share.py
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/wh /tmp/bins $OUT
step() { echo "$1 rc=$2 $3 s" >> $OUT/steps.txt; }
tar xJf devbin/bins.tar.xz -C /tmp/bins
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
s=$SECONDS; timeout 200 /tmp/bins/gpu --include-ignored --test-threads 4 sixteen_bit_rows_match integer_rows_match > $OUT/gpu.txt 2>&1
step "gpu $(grep 'test result' $OUT/gpu.txt)" $? $((SECONDS-s))
s=$SECONDS; timeout 200 /tmp/bins/gpu_ragged --include-ignored --test-threads 8 > $OUT/gpu_ragged.txt 2>&1
step "gpu_ragged $(grep 'test result' $OUT/gpu_ragged.txt)" $? $((SECONDS-s))
s=$SECONDS; timeout 180 /tmp/bins/rtopk verify cuda --quick --dtype bfloat16 > $OUT/verify_bf16.txt 2>&1
step verify_bf16 $? $((SECONDS-s))
cd $OUT && tar czf all.tgz device.txt gpu.txt gpu_ragged.txt verify_bf16.txt && rm -f gpu.txt gpu_ragged.txt verify_bf16.txt
