#!/usr/bin/env bash
# The ragged first call's pieces, and the package's CUDA tests on the shipped units alone (an
# empty kernel cache: every unit they load comes from the wheel or is counted as compiled).
# From the repository root on the device, devbin/s1 carried (as call_a.sh).
set -u
B=devbin/s1
O=$OUT/logs
mkdir -p "$O"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; nproc; } > "$O/device.txt"
step() { echo "== $1 $(date -u +%T)" >> "$O/steps.txt"; }
step install
pip install --no-deps --target /tmp/site "$B"/rtopk-*.whl > "$O/install.txt" 2>&1
export PYTHONPATH=/tmp/site CUDA_CACHE_DISABLE=1
step ragged_first
python3 results/cuda/2026-11-30-shipped-units-h200/ragged_first.py > "$O/ragged_first.txt" 2>&1
step pytest
RTOPK_CUDA_PTX_CACHE=/tmp/cache_py timeout 450 python3 -m pytest crates/rtopk-py/tests/test_torch_cuda.py crates/rtopk-py/tests/test_ragged.py -q -p no:cacheprovider --durations=12 > "$O/pytest.txt" 2>&1
echo "pytest rc $?; units compiled during the tests: $(ls /tmp/cache_py 2>/dev/null | wc -l)" >> "$O/pytest.txt"
step done
tar czf "$OUT/logs.tgz" -C "$OUT" logs
