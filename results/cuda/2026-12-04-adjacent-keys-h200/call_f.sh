#!/bin/bash
# On the device, from the repository root: the GPU tests of w23's tree (devbin/gpu,
# devbin/gpu_ragged; bf16 rows without counts through the value phase that ends at adjacent
# keys, in every family): rtopk-cuda's 16-bit and integer every-strategy tests (each exact case also without
# counts) and the GPU ragged tests.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p $OUT
step() { echo "$1 rc=$2 $3 s" >> $OUT/steps.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
s=$SECONDS; timeout 100 devbin/gpu --include-ignored --test-threads 4 sixteen_bit_rows_match integer_rows_match > $OUT/gpu.txt 2>&1
step "gpu $(grep 'test result' $OUT/gpu.txt)" $? $((SECONDS-s))
s=$SECONDS; timeout 120 devbin/gpu_ragged --include-ignored --test-threads 8 > $OUT/gpu_ragged.txt 2>&1
step "gpu_ragged $(grep 'test result' $OUT/gpu_ragged.txt)" $? $((SECONDS-s))
cd $OUT && tar czf all.tgz device.txt gpu.txt gpu_ragged.txt && rm gpu.txt gpu_ragged.txt
