#!/bin/bash
# The committed wide rows with minimum blocks per SM in __launch_bounds__ (registers capped) beside
# the plain bound: nvcc with the runtime NVRTC options; outputs hashed; CUDA events, median of 30.
cd devbin/h3
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; nvcc --version | tail -2; } > $OUT/device.txt
for t in f64 i64; do
  ( nvcc -O3 -arch=sm_90 --fmad=false --ftz=false --prec-sqrt=true --prec-div=true -std=c++17 -Xptxas -v -o lb_$t lb_$t.cu > $OUT/build_$t.txt 2>&1 ) &
done
wait
for t in f64 i64; do [ -x lb_$t ] && timeout 200 ./lb_$t >> $OUT/times.txt 2>&1 || echo "lb_$t failed rc=$?" >> $OUT/times.txt; done
