#!/bin/bash
# Profile the committed wide rows (c80f63e's kernels, devbin/wide3) on float64 2^18 x 256 and x 768,
# int64 x 256 and float32 x 256, k = 32: sections, pipe utilisation and source counters.
set -u
B=devbin/wide3
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx PYTHONUNBUFFERED=1
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; date -u +%Y-%m-%dT%H:%MZ; } > $OUT/device.txt
python3 -m pip install -q --no-deps --target /tmp/site $B/*.whl > /dev/null 2>&1
export PYTHONPATH=/tmp/site
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section InstructionStats --section LaunchStats --section ComputeWorkloadAnalysis --section SchedulerStats"
for c in "float64 256 32" "float64 768 32" "int64 256 32" "float32 256 32"; do
  set -- $c
  timeout 60 ncu $S --cache-control all --launch-skip 2 --launch-count 1 -k regex:rtopk python3 devbin/prof/prof.py $1 $2 $3 > $OUT/ncu_$1_$2.txt 2>&1
done
for c in "float64 256 32" "float64 768 32"; do
  set -- $c
  timeout 90 ncu --section SourceCounters --launch-skip 2 --launch-count 1 -k regex:rtopk -o /tmp/rep_$1_$2 python3 devbin/prof/prof.py $1 $2 $3 > /dev/null 2>&1
  ncu -i /tmp/rep_$1_$2.ncu-rep --page source --print-source sass --csv > $OUT/sass_$1_$2.csv 2>&1
done
ls -la $OUT
