#!/bin/bash
# The wide rows with the register sort (the tree) beside HEAD's global-memory sort: nvcc with the
# runtime NVRTC options; values, indices and iteration counts hashed; CUDA events, median of 30.
cd devbin/h4
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; nvcc --version | tail -2; } > $OUT/device.txt
for t in f64 i64; do
  ( nvcc -O3 -arch=sm_90 --fmad=false --ftz=false --prec-sqrt=true --prec-div=true -std=c++17 -Xptxas -v -o sort_$t sort_$t.cu > $OUT/build_$t.txt 2>&1 ) &
done
wait
for t in f64 i64; do [ -x sort_$t ] && timeout 200 ./sort_$t >> $OUT/times.txt 2>&1 || echo "sort_$t failed rc=$?" >> $OUT/times.txt; done
