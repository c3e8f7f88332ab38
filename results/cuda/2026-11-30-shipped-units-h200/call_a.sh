#!/usr/bin/env bash
# Shipped units on the GPU (issue 33: no compile on any first call). Run from the repository
# root on the device, with devbin/s1 carried: the stripped `rtopk` binary, rtopk-cuda's GPU test
# binary (`gpu`) and the wheel built after `rtopk prepare --arch sm_80,sm_90 --out
# crates/rtopk-py/python/rtopk/_units`.
set -u
B=devbin/s1
O=$OUT/logs
mkdir -p "$O"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; nproc; } > "$O/device.txt"
step() { echo "== $1 $(date -u +%T)" >> "$O/steps.txt"; }

step install
pip install --no-deps --target /tmp/site "$B"/rtopk-*.whl > "$O/install.txt" 2>&1
du -sh /tmp/site/rtopk/_units/* >> "$O/install.txt" 2>&1
ls -l "$B" >> "$O/install.txt"
export PYTHONPATH=/tmp/site CUDA_CACHE_DISABLE=1

step shipped_archs
python3 -c "import rtopk; print(rtopk.cuda.shipped_archs(), rtopk.cuda.is_available())" > "$O/shipped.txt" 2>&1

# every child gets an empty kernel cache of its own: its first call is served by the shipped
# units, or by NVRTC (the files it leaves in the cache)
step first_call_shipped
python3 bench/first_call_py.py --out "$O" --label shipped --fresh-cache > "$O/first_call_shipped.md" 2>&1
step first_call_shipped_again
python3 bench/first_call_py.py --out "$O" --label shipped2 --fresh-cache > "$O/first_call_shipped2.md" 2>&1
step first_call_nvrtc
mv /tmp/site/rtopk/_units /tmp/units_aside
python3 bench/first_call_py.py --out "$O" --label nvrtc --fresh-cache > "$O/first_call_nvrtc.md" 2>&1
mv /tmp/units_aside /tmp/site/rtopk/_units

step startup
RTOPK_CUDA_UNITS=/tmp/site/rtopk/_units RTOPK_CUDA_PTX_CACHE= "$B/rtopk" bench cuda --startup --n 8 --m 300 -k 5 > "$O/startup.txt" 2>&1
RTOPK_CUDA_PTX_CACHE= "$B/rtopk" bench cuda --startup --n 8 --m 300 -k 5 > "$O/startup_nvrtc.txt" 2>&1

step gpu_tests
"$B/gpu" --ignored --test-threads 1 a_shipped_unit_is_loaded_instead_of_compiled a_first_launch_builds_only without_a_driver > "$O/gpu_tests.txt" 2>&1

step pytest
RTOPK_CUDA_PTX_CACHE=/tmp/cache_py timeout 240 python3 -m pytest crates/rtopk-py/tests/test_torch_cuda.py crates/rtopk-py/tests/test_ragged.py -q -p no:cacheprovider > "$O/pytest.txt" 2>&1
echo "units compiled during the tests: $(ls /tmp/cache_py 2>/dev/null | wc -l)" >> "$O/pytest.txt"

step verify
RTOPK_CUDA_UNITS=/tmp/site/rtopk/_units RTOPK_CUDA_PTX_CACHE=/tmp/cache_v timeout 200 "$B/rtopk" verify cuda --quick --dtype float32 > "$O/verify_f32.txt" 2>&1
echo "units compiled during verify: $(ls /tmp/cache_v 2>/dev/null | wc -l)" >> "$O/verify_f32.txt"
step done
tar czf "$OUT/logs.tgz" -C "$OUT" logs
