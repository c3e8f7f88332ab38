#!/bin/bash
# Issue 37, second call (68c4cad): the four Python ragged 64-bit CUDA tests that failed in a/
# (with their tracebacks), `rtopk verify cuda --quick` on float64 and int64 (every width and
# search against bisect and the simulator), then the Python ragged and NumPy tests a/ did not
# reach.
set -u
B=devbin/wide
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx PYTHONUNBUFFERED=1
step() { local name=$1; shift; local t0=$(date +%s); "$@"; local rc=$?; echo "$name rc=$rc s=$(( $(date +%s) - t0 ))" >> $OUT/steps.txt; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; date -u +%Y-%m-%dT%H:%MZ; nproc; } > $OUT/device.txt
chmod +x $B/rtopk
python3 -m pip install -q --no-deps --target /tmp/site $B/*.whl > /dev/null 2>&1
export PYTHONPATH=/tmp/site
step pytest_ragged64 timeout 120 python3 -m pytest crates/rtopk-py/tests/test_torch_cuda.py -k "ragged_64" --tb=short -q -rs -p no:cacheprovider > $OUT/pytest_ragged64.txt 2>&1
step verify64 timeout 260 $B/rtopk verify cuda --quick --dtype float64 --dtype int64 > $OUT/verify64.txt 2>&1
step pytest_rest timeout 150 python3 -m pytest crates/rtopk-py/tests/test_ragged.py crates/rtopk-py/tests/test_numpy.py -q -rs -p no:cacheprovider --durations=5 > $OUT/pytest_rest.txt 2>&1
