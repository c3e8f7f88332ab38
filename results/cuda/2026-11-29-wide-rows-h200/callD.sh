#!/bin/bash
# Issue 37, fourth call (68c4cad's wheel): where the wide rows' instructions go: ncu's source
# counters on one call (float64 2^18 x 768, int64 2^18 x 256), the SASS with each instruction's
# executed count (--page source --print-source sass).
set -u
B=devbin/wide
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx PYTHONUNBUFFERED=1
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; date -u +%Y-%m-%dT%H:%MZ; nproc; } > $OUT/device.txt
python3 -m pip install -q --no-deps --target /tmp/site $B/*.whl > /dev/null 2>&1
export PYTHONPATH=/tmp/site
for c in "float64 768 32" "int64 256 32"; do
  set -- $c
  timeout 120 ncu --section SourceCounters --section WarpStateStats --launch-skip 2 --launch-count 1 -k regex:rtopk -o /tmp/rep_$1_$2 python3 $B/prof.py $1 $2 $3 > $OUT/ncu_log_$1_$2.txt 2>&1
  ncu -i /tmp/rep_$1_$2.ncu-rep --page source --print-source sass --csv > $OUT/sass_$1_$2.csv 2>&1
  ncu -i /tmp/rep_$1_$2.ncu-rep --page details > $OUT/details_$1_$2.txt 2>&1
done
cd $OUT && tar czf sass.tgz sass_*.csv details_* ncu_log_* && rm sass_*.csv details_* ncu_log_*
