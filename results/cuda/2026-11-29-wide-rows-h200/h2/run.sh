#!/bin/bash
# The part-warp wide rows (LANES = 16, 8) beside one warp per row (the tree's kernel at LANES = 32,
# and HEAD's): nvcc with the runtime's NVRTC options; each layout's outputs and iteration counts
# hashed; CUDA events, median of 30.
cd devbin/h2
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; nvcc --version | tail -2; } > $OUT/device.txt
for t in f64 i64; do
  ( nvcc -O3 -arch=sm_90 --fmad=false --ftz=false --prec-sqrt=true --prec-div=true -std=c++17 -Xptxas -v -o lanes_$t lanes_$t.cu > $OUT/build_$t.txt 2>&1 ) &
done
wait
for t in f64 i64; do [ -x lanes_$t ] && timeout 200 ./lanes_$t >> $OUT/times.txt 2>&1 || echo "lanes_$t failed rc=$?" >> $OUT/times.txt; done
