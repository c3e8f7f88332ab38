#!/usr/bin/env bash
# Call D (1 x H200): call C's wheel; the Python ragged, CUDA-tensor and torch.topk parity
# suites again after the ragged test's fix (its split case had taken the names of the rows
# the checks after it used).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx PYTHONUNBUFFERED=1
o=/tmp/o; mkdir -p $o
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "steps $(cat devbin/steps/COMMIT); wheel of 14:47Z"; } | tee $o/device.txt
step() { local name=$1; shift; local s=$SECONDS; "$@"; echo "== $name rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt; }
python3 -m pip install -q --no-deps --target /tmp/steps devbin/steps/rtopk-*.whl > /dev/null 2>&1
step prepare bash -c "PYTHONPATH=/tmp/steps timeout 150 python3 -m rtopk.cuda prepare > $o/prepare.txt 2>&1"
cd crates/rtopk-py
step pytest_a bash -c "PYTHONPATH=/tmp/steps timeout 250 python3 -m pytest tests/test_ragged.py tests/test_torch_cuda.py tests/test_torch_topk_parity.py -q -p no:cacheprovider -rs --tb=short > $o/pytest_a.txt 2>&1"
tail -8 $o/pytest_a.txt
cd ../..
tar czf $OUT/logs.tgz -C $o .
cp $o/steps.txt $o/device.txt $o/pytest_a.txt $OUT/
