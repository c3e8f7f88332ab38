#!/usr/bin/env bash
# One device call from the repository root with devbin/p1 carried (the wheel, shipping the
# sm_90 units; the gpu_raw test binary): the raw-launch GPU tests (the int64 conversion among
# them), the package's ragged and torch CUDA tests, first calls in fresh processes with fresh
# kernel caches, the ragged first call's parts, and host time per call against torch.topk.
set -u
pip install --no-deps --target /tmp/site devbin/p1/rtopk-*.whl > /dev/null 2>&1
export PYTHONPATH=/tmp/site CUDA_CACHE_DISABLE=1
L="$OUT/logs"; mkdir -p "$L"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$L/device.txt" 2>&1
python3 -c "import torch; print('torch', torch.__version__)" >> "$L/device.txt" 2>&1
RTOPK_CUDA_UNITS=/tmp/site/rtopk/_units RTOPK_CUDA_PTX_CACHE=/tmp/cache_raw timeout 150 devbin/p1/gpu_raw --ignored --test-threads 1 > "$L/gpu_raw.txt" 2>&1
echo "rc $?" >> "$L/gpu_raw.txt"
RTOPK_CUDA_PTX_CACHE=/tmp/cache_py timeout 200 python3 -m pytest crates/rtopk-py/tests/test_ragged.py crates/rtopk-py/tests/test_torch_cuda.py -q -p no:cacheprovider -k "not verify_quick" > "$L/pytest.txt" 2>&1
echo "rc $?; units compiled during the tests: $(ls /tmp/cache_py 2>/dev/null | wc -l)" >> "$L/pytest.txt"
timeout 120 python3 bench/first_call_py.py --out "$L" --label fresh --fresh-cache > "$L/first_call.txt" 2>&1
timeout 90 python3 results/cuda/2026-11-30-int64-per-row-h200/ragged_first.py > "$L/ragged_first.txt" 2>&1
timeout 150 python3 bench/eager_overhead.py --calls 2000 --rounds 3 --ragged --json "$L/eager.json" > "$L/eager.txt" 2>&1
tar czf "$OUT/logs.tgz" -C "$OUT" logs
