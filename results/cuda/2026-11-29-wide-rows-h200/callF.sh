#!/bin/bash
# Issue 37, sixth call: count_wide's compares packed into one mask and one popc (the working
# tree's wheel and binaries, devbin/wide3) against e/'s kernels (devbin/wide2): gpu_ragged's
# wide tests on the new kernels; bench/dtypes_int.py on float32, float64 and int64 with each
# wheel in turn, in the same call; then `rtopk verify cuda --quick` on float64 and int64 with
# the new binary, as long as the call lasts.
set -u
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx PYTHONUNBUFFERED=1
step() { local name=$1; shift; local t0=$(date +%s); "$@"; local rc=$?; echo "$name rc=$rc s=$(( $(date +%s) - t0 ))" >> $OUT/steps.txt; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; date -u +%Y-%m-%dT%H:%MZ; nproc; } > $OUT/device.txt
chmod +x devbin/wide3/rtopk devbin/wide3/gpu_ragged
step gpu_ragged_wide timeout 120 devbin/wide3/gpu_ragged --ignored wide --test-threads 4 > $OUT/gpu_ragged_wide.txt 2>&1
for v in wide2 wide3; do
  rm -rf /tmp/site_$v; python3 -m pip install -q --no-deps --target /tmp/site_$v devbin/$v/*.whl > /dev/null 2>&1
  mkdir -p $OUT/$v
  PYTHONPATH=/tmp/site_$v step "dtypes_int_$v" timeout 80 python3 bench/dtypes_int.py --types float32,float64,int64 --reps 15 --out /tmp/bench_$v > /tmp/bench_$v.log 2>&1
  cp /tmp/bench_$v/dtypes_int.md $OUT/$v/dtypes_int.md
  grep -E "^\| (float64|int64|float32) \| [0-9]" /tmp/bench_$v/dtypes_int.md | head -3 >> $OUT/steps.txt
done
step verify_f64 timeout 200 devbin/wide3/rtopk verify cuda --quick --dtype float64 > $OUT/verify_f64.txt 2>&1
step verify_i64 timeout 160 devbin/wide3/rtopk verify cuda --quick --dtype int64 > $OUT/verify_i64.txt 2>&1
