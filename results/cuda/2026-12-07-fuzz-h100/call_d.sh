#!/usr/bin/env bash
# Call d: this commit's wheel (h21) — the package's ragged, 16-bit and torch-parity tests on the
# GPU (call c's CUDA test file stopped in its last test, the 64-bit quick verify, at 300 s).
set -uo pipefail
source bench/device_call.sh
wheel h21
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_h21
step pytest_rest 190 env $(build_env h21) $PY -m pytest crates/rtopk-py/tests/test_ragged.py crates/rtopk-py/tests/test_dtypes16.py crates/rtopk-py/tests/test_torch_topk_parity.py -q -p no:cacheprovider
cat $OUT/steps.txt; tail -n 6 $OUT/pytest_rest.txt
