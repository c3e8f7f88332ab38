#!/bin/bash
# Call d (1 x H200, from the repository root): the final build (devbin/w6: CLI, gpu_ragged test
# binary, abi3 wheel of the committed kernels). `rtopk verify cuda --quick` on float64, then
# int64, in the background while gpu_ragged's wide tests and the package's torch-parity and
# CUDA-tensor tests run; then, alone on the GPU, bench/dtypes_int.py over the RTop-K grid
# (rtopk.topk and torch.topk in the same call, every cell checked), unsorted and sorted.
set -u
B=devbin/w6
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx PYTHONUNBUFFERED=1
step() { local name=$1; shift; local t0=$(date +%s); "$@"; local rc=$?; echo "$name rc=$rc s=$(( $(date +%s) - t0 ))" >> $OUT/steps.txt; }
mkdir -p /tmp/o
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; date -u +%Y-%m-%dT%H:%MZ; nproc; } > /tmp/o/device.txt
chmod +x $B/rtopk $B/gpu_ragged
( step verify_f64 timeout 230 $B/rtopk verify cuda --quick --dtype float64 > /tmp/o/verify_f64.txt 2>&1
  step verify_i64 timeout 200 $B/rtopk verify cuda --quick --dtype int64 > /tmp/o/verify_i64.txt 2>&1 ) &
bg=$!
step gpu_ragged_wide timeout 120 $B/gpu_ragged --ignored wide --test-threads 4 > /tmp/o/gpu_ragged_wide.txt 2>&1
python3 -m pip install -q --no-deps --target /tmp/site $B/*.whl > /dev/null 2>&1
export PYTHONPATH=/tmp/site
step pytest timeout 260 python3 -m pytest crates/rtopk-py/tests/test_torch_topk_parity.py crates/rtopk-py/tests/test_torch_cuda.py crates/rtopk-py/tests/test_ragged.py -k "not verify_quick and (cuda or parity or torch)" -q -rs -p no:cacheprovider --durations=5 > /tmp/o/pytest.txt 2>&1
wait $bg
step dtypes_int timeout 110 python3 bench/dtypes_int.py --types float32,float64,int64,int32 --reps 15 --out /tmp/bench > /tmp/o/dtypes_int_log.txt 2>&1
step dtypes_int_sorted timeout 120 python3 bench/dtypes_int.py --sorted --types float32,float64,int64 --reps 15 --out /tmp/bench_sorted > /tmp/o/dtypes_int_sorted_log.txt 2>&1
cp /tmp/bench/dtypes_int.md /tmp/o/dtypes_int.md; cp /tmp/bench/dtypes_int.json /tmp/o/dtypes_int.json
cp /tmp/bench_sorted/dtypes_int.md /tmp/o/dtypes_int_sorted.md; cp /tmp/bench_sorted/dtypes_int.json /tmp/o/dtypes_int_sorted.json
grep -E "^\| (float64|int64|int32|float32) \| [0-9]" /tmp/o/dtypes_int.md | head -4 >> $OUT/steps.txt
grep -E "^\| (float64|int64|float32) \| [0-9]" /tmp/o/dtypes_int_sorted.md | head -3 >> $OUT/steps.txt
tail -3 /tmp/o/verify_f64.txt /tmp/o/verify_i64.txt >> $OUT/steps.txt 2>&1
(cd /tmp/o && tar czf $OUT/logs.tgz .)
