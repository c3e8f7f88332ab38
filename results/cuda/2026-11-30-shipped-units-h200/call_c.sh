#!/usr/bin/env bash
# The package's CUDA tests on the shipped units alone, verbose, with a traceback of any test
# that runs 40 s (c/pytest_v.txt), then the same without test_verify_quick (c/pytest_rest.txt).
# Run as two device commands from the repository root, devbin/s1 carried.
set -u
pip install --no-deps --target /tmp/site devbin/s1/rtopk-*.whl > /dev/null 2>&1
export PYTHONPATH=/tmp/site CUDA_CACHE_DISABLE=1
mkdir -p "$OUT/logs"
RTOPK_CUDA_PTX_CACHE=/tmp/cache_py2 timeout 170 python3 -m pytest crates/rtopk-py/tests/test_torch_cuda.py crates/rtopk-py/tests/test_ragged.py -v -p no:cacheprovider -o faulthandler_timeout=40 > "$OUT/logs/pytest_v.txt" 2>&1
RTOPK_CUDA_PTX_CACHE=/tmp/cache_py3 timeout 290 python3 -m pytest crates/rtopk-py/tests/test_torch_cuda.py crates/rtopk-py/tests/test_ragged.py -q -p no:cacheprovider --deselect crates/rtopk-py/tests/test_torch_cuda.py::test_verify_quick > "$OUT/logs/pytest_rest.txt" 2>&1
echo "rc $?; units compiled during the tests: $(ls /tmp/cache_py3 2>/dev/null | wc -l)" >> "$OUT/logs/pytest_rest.txt"
