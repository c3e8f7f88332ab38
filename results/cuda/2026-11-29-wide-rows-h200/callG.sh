#!/bin/bash
# Issue 37, A/B: the wide rows' branch-free keying, two-word warp reductions, opaque output
# pointers and the count's tail test (devbin/w4) against the committed kernels (devbin/wide3):
# bench/dtypes_int.py on float32, float64 and int64 with each wheel in turn, in the same call;
# ncu on one float64 call at M = 256 and 768 with the new wheel; gpu_ragged's wide tests.
set -u
export PYTHONUNBUFFERED=1
step() { local name=$1; shift; local t0=$(date +%s); "$@"; local rc=$?; echo "$name rc=$rc s=$(( $(date +%s) - t0 ))" >> $OUT/steps.txt; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; date -u +%Y-%m-%dT%H:%MZ; nproc; } > $OUT/device.txt
chmod +x devbin/w4/rtopk devbin/w4/gpu_ragged
for v in wide3 w4; do
  rm -rf /tmp/site_$v; python3 -m pip install -q --no-deps --target /tmp/site_$v devbin/$v/*.whl > /dev/null 2>&1
  mkdir -p $OUT/$v
  RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$v PYTHONPATH=/tmp/site_$v step "dtypes_int_$v" timeout 90 python3 bench/dtypes_int.py --types float32,float64,int64 --reps 15 --out /tmp/bench_$v > /tmp/bench_$v.log 2>&1
  cp /tmp/bench_$v/dtypes_int.md /tmp/bench_$v/dtypes_int.json $OUT/$v/
  grep -E "^\| (float64|int64|float32) \| [0-9]" /tmp/bench_$v/dtypes_int.md | head -3 >> $OUT/steps.txt
done
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section InstructionStats --section LaunchStats --section SchedulerStats"
for c in "float64 256 32" "float64 768 32"; do
  set -- $c
  RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w4 PYTHONPATH=/tmp/site_w4 step "ncu_$1_$2" timeout 40 ncu $S --cache-control all --launch-skip 2 --launch-count 1 -k regex:rtopk python3 devbin/prof/prof.py $1 $2 $3 > $OUT/ncu_$1_$2.txt 2>&1
done
RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w4 step gpu_ragged_wide timeout 120 devbin/w4/gpu_ragged --ignored wide --test-threads 4 > $OUT/gpu_ragged_wide.txt 2>&1
