#!/bin/bash
# rtopk-cuda's own GPU tests on d48086a: every family and strategy against bisect and the
# simulator (f32, 16-bit, integers), the program's step kinds against the simulator's program,
# raw launches (the launch parameters gained a field).
set -u
B=devbin/cudatests
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
step() { local name=$1; shift; local t0=$(date +%s); "$@"; local rc=$?; echo "$name rc=$rc s=$(( $(date +%s) - t0 ))" >> $OUT/steps.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $OUT/device.txt
chmod +x $B/gpu $B/gpu_raw
step gpu_raw timeout 150 $B/gpu_raw --ignored --test-threads 2 > $OUT/gpu_raw.txt 2>&1
step gpu timeout 400 $B/gpu --ignored --test-threads 4 > $OUT/gpu.txt 2>&1
