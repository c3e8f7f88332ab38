#!/usr/bin/env bash
# Call L (2 × H200): the final build's GPU tests (the program cache keyed on every search
# option, the raw path's one-lookup launch), the Python tests on CUDA tensors, eager host time,
# and rtopk.distributed's benchmark on 1 and 2 GPUs.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
T0=$SECONDS
N=devbin/new
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "build $(cat $N/COMMIT)"; } | tee $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/site $N/rtopk-*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
step() { local name=$1; shift; local s=$SECONDS; "$@"; echo "== $name rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt; }
step prepare timeout 60 $N/rtopk prepare > $o/prepare.txt 2>&1
step gpu_raw bash -c "timeout 120 $N/tests/gpu_raw --ignored --test-threads 1 > $o/gpu_raw.txt 2>&1"
step gpu bash -c "timeout 150 $N/tests/gpu --ignored --test-threads 1 every_strategy sixteen_bit_rows > $o/gpu.txt 2>&1"
step gpu_ragged bash -c "timeout 90 $N/tests/gpu_ragged --ignored --test-threads 1 > $o/gpu_ragged.txt 2>&1"
step pytest bash -c "cd crates/rtopk-py && timeout 240 python3 -m pytest tests -q -rs -p no:cacheprovider > $o/pytest.txt 2>&1"
step eager bash -c "timeout 120 python3 bench/eager_overhead.py --calls 3000 --json $o/eager.json > $o/eager.txt 2>&1"

echo "total $((SECONDS - T0)) s" | tee -a $o/steps.txt
tar czf $OUT/call_l.tgz -C $o .
