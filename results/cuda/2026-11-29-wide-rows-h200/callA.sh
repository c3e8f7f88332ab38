#!/bin/bash
# Issue 37 on the GPU (68c4cad): the 64-bit rows. Every unit built first (rtopk prepare), then
# bench/dtypes_int.py over the RTop-K grid on float32, float64, int64 and int32 (rtopk.topk and
# torch.topk in the same call), the whole gpu_ragged binary (the wide tests among them), and the
# Python tests on CUDA tensors (torch parity, CUDA tensors, ragged, NumPy).
set -u
B=devbin/wide
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx PYTHONUNBUFFERED=1
step() { local name=$1; shift; local t0=$(date +%s); "$@"; local rc=$?; echo "$name rc=$rc s=$(( $(date +%s) - t0 ))" >> $OUT/steps.txt; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; date -u +%Y-%m-%dT%H:%MZ; nproc; } > $OUT/device.txt
chmod +x $B/rtopk $B/gpu_ragged $B/gpu $B/gpu_raw
step prepare timeout 110 $B/rtopk prepare > $OUT/prepare.txt 2>&1
python3 -m pip install -q --no-deps --target /tmp/site $B/*.whl > /dev/null 2>&1
export PYTHONPATH=/tmp/site
step dtypes_int timeout 150 python3 bench/dtypes_int.py --types float32,float64,int64,int32 --reps 15 --out $OUT > $OUT/dtypes_int_log.txt 2>&1
step gpu_ragged timeout 170 $B/gpu_ragged --ignored --test-threads 4 > $OUT/gpu_ragged.txt 2>&1
step pytest timeout 140 python3 -m pytest crates/rtopk-py/tests/test_torch_topk_parity.py crates/rtopk-py/tests/test_torch_cuda.py crates/rtopk-py/tests/test_ragged.py crates/rtopk-py/tests/test_numpy.py -q -rs -p no:cacheprovider > $OUT/pytest.txt 2>&1
tail -3 $OUT/pytest.txt >> $OUT/steps.txt
