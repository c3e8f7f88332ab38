#!/bin/bash
# devbin/DIR/run.sh DIR [prof]: build the harness TUs, time head vs tree, optionally ncu source counters of head.
set -u
D=$1; P=${2:-}
L=$OUT/logs; mkdir -p $L
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; nvcc --version | tail -2; } > $L/device.txt
cd $D
for f in wide_f64 wide_i64; do
  ( nvcc -O3 -arch=sm_90 --fmad=false --ftz=false --prec-sqrt=true --prec-div=true -std=c++17 -Xptxas -v -o $f $f.cu > $L/build_$f.txt 2>&1 ) &
done
wait
for f in wide_f64 wide_i64; do
  if [ -x $f ]; then timeout 150 ./$f >> $L/times.txt 2>&1; else echo "$f build failed" >> $L/times.txt; fi
done
if [ "$P" = prof ]; then
  cuobjdump -sass wide_f64 > $L/sass_f64.txt 2>&1
  for c in "m24 768 32" "c24 768 32"; do
    set -- $c
    timeout 100 ncu --section SourceCounters --section SpeedOfLight --section Occupancy --section InstructionStats --launch-skip 2 --launch-count 1 -k regex:$1 -o /tmp/rep_$1 ./wide_f64 prof $1 $2 $3 > $L/ncu_$1.txt 2>&1
    ncu -i /tmp/rep_$1.ncu-rep --page source --print-source sass --csv > $L/sass_$1.csv 2>&1
    ncu -i /tmp/rep_$1.ncu-rep > $L/ncu_details_$1.txt 2>&1
  done
fi
cd $OUT && tar czf logs.tgz logs && rm -rf logs
