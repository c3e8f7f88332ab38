#!/bin/bash
# Issue 37, the final wide rows (the working tree: two-word warp reductions, the count's tail
# test, opaque output pointers and the selection's early stop; the keying as committed):
# `rtopk verify cuda --quick` on float64, then int64, in the background while gpu_ragged's wide
# tests and the Python torch-parity and CUDA-tensor tests run; then, alone on the GPU,
# bench/dtypes_int.py over the RTop-K grid (float32, float64, int64).
set -u
B=devbin/w5
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx PYTHONUNBUFFERED=1
step() { local name=$1; shift; local t0=$(date +%s); "$@"; local rc=$?; echo "$name rc=$rc s=$(( $(date +%s) - t0 ))" >> $OUT/steps.txt; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; date -u +%Y-%m-%dT%H:%MZ; nproc; } > $OUT/device.txt
chmod +x $B/rtopk $B/gpu_ragged
( step verify_f64 timeout 230 $B/rtopk verify cuda --quick --dtype float64 > $OUT/verify_f64.txt 2>&1
  step verify_i64 timeout 190 $B/rtopk verify cuda --quick --dtype int64 > $OUT/verify_i64.txt 2>&1 ) &
bg=$!
step gpu_ragged_wide timeout 120 $B/gpu_ragged --ignored wide --test-threads 4 > $OUT/gpu_ragged_wide.txt 2>&1
python3 -m pip install -q --no-deps --target /tmp/site $B/*.whl > /dev/null 2>&1
export PYTHONPATH=/tmp/site
step pytest timeout 200 python3 -m pytest crates/rtopk-py/tests/test_torch_topk_parity.py crates/rtopk-py/tests/test_torch_cuda.py -k "not verify_quick" -q -rs -p no:cacheprovider --durations=5 > $OUT/pytest.txt 2>&1
wait $bg
step dtypes_int timeout 100 python3 bench/dtypes_int.py --types float32,float64,int64 --reps 15 --out /tmp/bench > $OUT/dtypes_int_log.txt 2>&1
cp /tmp/bench/dtypes_int.md /tmp/bench/dtypes_int.json $OUT/
grep -E "^\| (float64|int64|float32) \| [0-9]" $OUT/dtypes_int.md | head -3 >> $OUT/steps.txt
