#!/bin/bash
# devbin/DIR/run.sh DIR [PROFS...]: build the warp-rows harness (f16, bf16, f32), time every variant, ncu source
# counters for each "NAME M K" given (on f16 and bf16).
set -u
D=$1; shift
L=$OUT/logs; mkdir -p $L
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; nvcc --version | tail -2; } > $L/device.txt
cd $D
for t in f16 bf16 f32; do
  ( nvcc -O3 -arch=sm_90 --fmad=false --ftz=false --prec-sqrt=true --prec-div=true -std=c++17 -Xptxas -v -o warp_$t warp_$t.cu > $L/build_$t.txt 2>&1 ) &
done
wait
for t in f16 bf16 f32; do
  if [ -x warp_$t ]; then timeout 150 ./warp_$t >> $L/times.txt 2>&1; else echo "warp_$t build failed" >> $L/times.txt; fi
done
for c in "$@"; do
  set -- $c
  for t in f16 bf16; do
    timeout 100 ncu --section SourceCounters --section SpeedOfLight --section Occupancy --launch-skip 2 --launch-count 1 -k regex:$1 -o /tmp/rep_${t}_$1_$3 ./warp_$t prof $1 $2 $3 > $L/ncu_${t}_$1_$3.txt 2>&1
    ncu -i /tmp/rep_${t}_$1_$3.ncu-rep --page source --print-source sass --csv > $L/sass_${t}_$1_$3.csv 2>&1
    ncu -i /tmp/rep_${t}_$1_$3.ncu-rep > $L/ncu_details_${t}_$1_$3.txt 2>&1
  done
done
cd $OUT && tar czf logs.tgz logs && cp logs/times.txt . && rm -rf logs
