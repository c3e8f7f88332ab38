#!/bin/bash
# devbin/DIR/run.sh DIR VARIANTS...: build the grouped harness, check every variant's outputs, then
# ncu's kernel time (warm caches, the GPU's own clocks: issue 35's measure) per variant and N.
set -u
D=$1; shift
L=$OUT/logs; mkdir -p $L
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; nvcc --version | tail -2; } > $L/device.txt
cd $D
for t in f32 bf16; do
  ( nvcc -O3 -arch=sm_90 --fmad=false --ftz=false --prec-sqrt=true --prec-div=true -std=c++17 -Xptxas -v -o grouped_$t grouped_$t.cu > $L/build_$t.txt 2>&1 ) &
done
wait
for t in f32 bf16; do ./grouped_$t check >> $L/check.txt 2>&1; done
for t in f32 bf16; do for v in "$@"; do for n in 1 4 16 64 256; do
  timeout 60 ncu --kernel-name regex:g_$v --launch-skip 2 --launch-count 10 --metrics gpu__time_duration.sum --cache-control none --clock-control none --csv ./grouped_$t prof $v $n > /tmp/n.csv 2>/dev/null
  echo "$t $v $n $(grep gpu__time_duration /tmp/n.csv | awk -F'","' '{print $NF}' | tr -d '",' | sort -n | awk '{a[NR]=$1} END {print "median_ns", a[int((NR+1)/2)], "min_ns", a[1], "n", NR}')"
done; done; done | tee $L/ncu.txt
cd $OUT && tar czf logs.tgz logs && cp logs/ncu.txt logs/check.txt . && rm -rf logs
