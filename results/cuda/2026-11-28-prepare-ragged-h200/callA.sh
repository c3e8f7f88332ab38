#!/usr/bin/env bash
# Call A: correctness of the merged build on the device (verify cold, GPU tests with the
# ragged programs), kernels prepared once and first calls after, the Python package's tests
# with torch and JAX, where an eager call's host time goes.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
out=$OUT; mkdir -p $out
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $out/device.txt
python3 -m pip install -q --no-deps --target /tmp/site devbin/rtopk-*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site
step() { local name=$1; shift; local s=$SECONDS; timeout ${TO:-300} "$@" > $out/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s"; tail -n ${TAILN:-3} $out/$name.txt; }
export RTOPK_CUDA_PTX_CACHE=$(mktemp -d)
TAILN=2 TO=200 step prepare_cold devbin/rtopk prepare
TAILN=2 TO=60 step prepare_warm devbin/rtopk prepare
TAILN=12 TO=200 step first_call_py python3 bench/first_call_py.py --out $out --label prepared
TAILN=3 TO=200 step verify_quick env CUDA_CACHE_DISABLE=1 devbin/rtopk verify cuda --quick
echo "identical lines: $(grep -c identical $out/verify_quick.txt)"
: > $out/tests.txt
for t in devbin/tests/*; do
  s=$SECONDS; timeout 200 $t --include-ignored --test-threads 1 --skip kernel_matches_bisect_and_the_simulator_in_every_family_shape_and_mode >> $out/tests_raw.log 2>&1
  echo "$(basename $t) rc=$? $((SECONDS-s)) s: $(grep -h '^test result' $out/tests_raw.log | tail -1)" | tee -a $out/tests.txt
done
grep -h "FAILED\|panicked" $out/tests_raw.log | head -20 >> $out/tests.txt
TAILN=8 TO=400 step pytest python3 -m pytest crates/rtopk-py/tests -q -rs -p no:cacheprovider
