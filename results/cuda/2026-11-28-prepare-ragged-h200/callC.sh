#!/usr/bin/env bash
# Call C: the Python tests this session changed, with torch and JAX on the GPU (final wheel).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
out=$OUT; mkdir -p $out
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $out/device.txt
python3 -m pip install -q --no-deps --target /tmp/site devbin/rtopk-*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site
cd crates/rtopk-py && timeout 200 python3 -m pytest tests/test_torch_topk_parity.py -k "zero or scalar or 0d" -q -rs -p no:cacheprovider > $out/pytest_changed.txt 2>&1; echo "== pytest rc=$?"; grep -E "^FAILED|passed|failed" $out/pytest_changed.txt | tail -25
