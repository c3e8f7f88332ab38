#!/usr/bin/env bash
# Call S (1 x H200): integer rows on the GPU — GPU tests (integer strategies, ragged/hinted/split
# integer rows, raw launches), verify cuda --quick over every kernel type, the torch parity
# and CUDA tensor tests, and bench/dtypes_int.py (rtopk vs torch.topk on integer rows).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
T0=$SECONDS
N=devbin/new
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "build $(cat $N/COMMIT)"; } | tee $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/site $N/rtopk-*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
step() { local name=$1; shift; local s=$SECONDS; "$@"; echo "== $name rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt; }
step prepare bash -c "timeout 200 $N/rtopk prepare > $o/prepare.txt 2>&1"
step gpu_int bash -c "timeout 120 $N/tests/gpu --ignored --test-threads 1 integer_rows sixteen_bit_rows every_strategy partial_blocks sorted_output every_step_kind > $o/gpu.txt 2>&1"
step gpu_ragged bash -c "timeout 120 $N/tests/gpu_ragged --ignored --test-threads 1 > $o/gpu_ragged.txt 2>&1"
step gpu_raw bash -c "timeout 90 $N/tests/gpu_raw --ignored --test-threads 1 > $o/gpu_raw.txt 2>&1"
step pytest bash -c "cd crates/rtopk-py && timeout 150 python3 -m pytest tests/test_torch_topk_parity.py tests/test_torch_cuda.py tests/test_torch_cpu.py -q -rs -p no:cacheprovider > $o/pytest.txt 2>&1"
step bench bash -c "cd bench && timeout 200 python3 dtypes_int.py --quick --reps 15 --out $o/dtypes_int > $o/bench.txt 2>&1"
step verify bash -c "timeout $((560 - (SECONDS - T0))) $N/rtopk verify cuda --quick > $o/verify.txt 2>&1"
echo "total $((SECONDS - T0)) s" | tee -a $o/steps.txt
tail -30 $o/gpu.txt; tail -5 $o/gpu_ragged.txt $o/gpu_raw.txt $o/pytest.txt; tail -25 $o/dtypes_int/dtypes_int.md 2>/dev/null | head -22; tail -12 $o/verify.txt
tar czf $OUT/call_s.tgz -C $o .
