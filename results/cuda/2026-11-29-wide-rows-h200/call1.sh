#!/bin/bash
# 64-bit rows (issue 37): the wide rows' GPU tests against the simulator and bisect, the
# Python package's float64/int64 CUDA tests, and float64/int64 rows against torch.topk on the
# RTop-K grid at N = 2^20 (bench/dtypes_int.py --quick), in one call.
set -u
B=devbin/wide
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
PY=/opt/torch/.venv/bin/python3
step() { local name=$1; shift; local t0=$(date +%s); "$@"; local rc=$?; echo "$name rc=$rc s=$(( $(date +%s) - t0 ))" >> $OUT/steps.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $OUT/device.txt
date -u >> $OUT/device.txt
chmod +x $B/gpu_ragged
step gpu_wide timeout 120 $B/gpu_ragged --ignored --test-threads 2 wide > $OUT/gpu_wide.txt 2>&1
step wheel python3 -m pip install -q --no-deps --target /tmp/site $B/*.whl
export PYTHONPATH=/tmp/site
step pytest timeout 90 $PY -m pytest -q -x crates/rtopk-py/tests -k "float64 or int64" > $OUT/pytest.txt 2>&1
step bench timeout 200 env PYTHONPATH=/tmp/site:bench $PY bench/dtypes_int.py --out $OUT/bench --quick --types float32,float64,int64 --reps 9 > $OUT/bench.log 2>&1
tail -5 $OUT/gpu_wide.txt $OUT/pytest.txt
cat $OUT/steps.txt
