#!/usr/bin/env bash
# Call c: this commit's wheel (h21) — the package's CUDA tests whole (call b cut them off), and
# sorted 16-bit calls at k past 4096 against torch.topk sorted (bench/sort_step.py --grid
# large-k), which could not launch before the sort's launch bound.
set -uo pipefail
source bench/device_call.sh
wheel h21
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_h21
step pytest_cuda 300 env $(build_env h21) $PY -m pytest crates/rtopk-py/tests/test_torch_cuda.py crates/rtopk-py/tests/test_dtypes16.py -q -p no:cacheprovider
step sort16 200 env $(build_env h21) $PY bench/sort_step.py --grid large-k --dtype bfloat16,float16 --reps 15 --out $OUT/sort16.json
cat $OUT/steps.txt; tail -n 4 $OUT/pytest_cuda.txt; tail -n 30 $OUT/sort16.txt
