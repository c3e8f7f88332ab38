#!/usr/bin/env bash
# Call a: HEAD's wheel (h22) and rtopk binary (bins39) — every kernel unit built first
# (`python -m rtopk.cuda prepare`), then the package's whole CUDA test file (its 16-bit sorted
# test at large k included, never run on a device before) and the JAX tests, the fuzz with its
# JAX half on the GPU.
set -uo pipefail
source bench/device_call.sh
wheel h22; bins 39
export $(build_env h22)
step prepare 150 $PY -m rtopk.cuda prepare
step pytest_cuda 240 $PY -m pytest crates/rtopk-py/tests/test_torch_cuda.py -q -p no:cacheprovider -rs --durations=8
step pytest_jax 40 $PY -m pytest crates/rtopk-py/tests/test_jax.py -q -p no:cacheprovider -rs
step fuzz_jax 55 $PY bench/fuzz_cuda.py --jax --seconds 40 --seed 31 --out $OUT/fuzz_jax.json
tail -n 15 $OUT/pytest_cuda.txt; tail -n 4 $OUT/pytest_jax.txt; grep -E "FAIL|cases" $OUT/fuzz_jax.txt | head -20
# The sort step's speed-of-light at 2^20 sorted rows of 256, k = 128 (issue 33's slowest cells).
step ncu_sort 45 ncu --kernel-name regex:rtopk_sort --launch-count 2 --section SpeedOfLight --section Occupancy /tmp/bins39/rtopk bench cuda --n 1048576 --m 256 -k 128 --sorted --reps 2
grep -E "Duration|Throughput|Occupancy|Registers|Block Limit" $OUT/ncu_sort.txt | head -30
cat $OUT/steps.txt
