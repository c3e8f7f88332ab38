#!/usr/bin/env bash
# Call a: bench/fuzz_cuda.py on the wheel of 20f5f3f — random requests through rtopk.topk on
# CUDA tensors against the package's CPU path (and the NumPy oracle on small matrices), two
# seeds, then the first failures' inputs.
set -uo pipefail
source bench/device_call.sh
wheel h20
# ml_dtypes (the fuzz's bfloat16 arrays) from devbin/mld where the device's Python lacks it
$PY -c "import ml_dtypes" 2>/dev/null \
    || $PY -m pip install -q --no-deps --no-index --find-links devbin/mld312 --target /tmp/site_h20 ml_dtypes
step fuzz_s1 300 env $(build_env h20) $PY bench/fuzz_cuda.py --seconds 270 --seed 1 --out $OUT/fuzz_s1.json --keep $OUT/fail_s1.npz
step fuzz_s2 200 env $(build_env h20) $PY bench/fuzz_cuda.py --seconds 170 --seed 2 --out $OUT/fuzz_s2.json --keep $OUT/fail_s2.npz
cat $OUT/steps.txt; tail -n 40 $OUT/fuzz_s1.txt; tail -n 12 $OUT/fuzz_s2.txt
