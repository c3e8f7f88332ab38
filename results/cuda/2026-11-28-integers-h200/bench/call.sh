#!/usr/bin/env bash
# Call U (1 x H200): this commit's wheel — the torch parity, CUDA tensor and CPU tensor tests
# (the GPU verify test on one type of each storage), and bench/dtypes_int.py over the whole
# grid (N = 2^16, 2^18, 2^20).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
T0=$SECONDS
N=devbin/new
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "wheel $(cat $N/COMMIT)"; } | tee $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/site $N/rtopk-*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
step() { local name=$1; shift; local s=$SECONDS; "$@"; echo "== $name rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt; }
step bench bash -c "cd bench && timeout 200 python3 dtypes_int.py --reps 15 --out $o/dtypes_int > $o/bench.txt 2>&1"
step pytest bash -c "cd crates/rtopk-py && timeout 330 python3 -m pytest tests/test_torch_topk_parity.py tests/test_torch_cuda.py tests/test_torch_cpu.py -q -rs -p no:cacheprovider --durations=10 > $o/pytest.txt 2>&1"
echo "total $((SECONDS - T0)) s" | tee -a $o/steps.txt
tail -22 $o/pytest.txt; sed -n 1,30p $o/dtypes_int/dtypes_int.md
tar czf $OUT/call_u.tgz -C $o .
