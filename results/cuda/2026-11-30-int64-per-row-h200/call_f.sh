#!/usr/bin/env bash
# The tree after the review (devbin/p5: its wheel, shipping the sm_90 units, and the gpu_raw
# test binary), one device call from the
# repository root: the package's ragged and CUDA-tensor tests, first calls in fresh processes
# with fresh kernel caches, host time per call against torch.topk (plain and ragged), and the
# decode benchmark (hinted calls checked against plain ones and torch.topk, timed beside it).
set -u
pip install --no-deps --target /tmp/site devbin/p5/rtopk-*.whl > /dev/null 2>&1
export PYTHONPATH=/tmp/site CUDA_CACHE_DISABLE=1
L="$OUT/logs"; mkdir -p "$L"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$L/device.txt" 2>&1
RTOPK_CUDA_PTX_CACHE=/tmp/cache_py timeout 240 python3 -m pytest crates/rtopk-py/tests/test_ragged.py crates/rtopk-py/tests/test_torch_cuda.py -q -p no:cacheprovider -k "not verify_quick" > "$L/pytest.txt" 2>&1
echo "rc $?; units compiled during the tests: $(ls /tmp/cache_py 2>/dev/null | wc -l)" >> "$L/pytest.txt"
timeout 120 python3 bench/first_call_py.py --out "$L" --label fresh --fresh-cache > "$L/first_call.txt" 2>&1
timeout 200 python3 bench/eager_overhead.py --calls 2000 --rounds 3 --ragged --json "$L/eager.json" > "$L/eager.txt" 2>&1
echo "rc $?" >> "$L/eager.txt"
timeout 150 python3 bench/decode.py --steps 12 --out "$L/decode.json" > "$L/decode.txt" 2>&1
echo "rc $?" >> "$L/decode.txt"
RTOPK_CUDA_UNITS=/tmp/site/rtopk/_units timeout 100 devbin/p5/gpu_raw --ignored --test-threads 1 > "$L/gpu_raw.txt" 2>&1
echo "rc $?" >> "$L/gpu_raw.txt"
tar czf "$OUT/logs.tgz" -C "$OUT" logs
