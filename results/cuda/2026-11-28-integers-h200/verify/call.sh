#!/usr/bin/env bash
# Call T (1 x H200): verify cuda --quick on the four integer types (f327a4c's kernels; the
# binary of the next commit, which adds --dtype), beside the torch parity and CUDA tensor tests
# of f327a4c's wheel, which the last call's 150 s cut short.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
T0=$SECONDS
N=devbin/new
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "wheel $(cat $N/COMMIT), binary $(cat $N/BINARY_COMMIT)"; } | tee $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/site $N/rtopk-*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
( s=$SECONDS; timeout 520 $N/rtopk verify cuda --quick --dtype int8 --dtype uint8 --dtype int16 --dtype int32 > $o/verify.txt 2>&1; echo "== verify rc=$? $((SECONDS-s)) s" >> $o/steps.txt ) &
( s=$SECONDS; cd crates/rtopk-py && timeout 420 python3 -m pytest tests/test_torch_topk_parity.py tests/test_torch_cuda.py tests/test_torch_cpu.py -q -rs -p no:cacheprovider --durations=15 > $o/pytest.txt 2>&1; echo "== pytest rc=$? $((SECONDS-s)) s" >> $o/steps.txt ) &
wait
echo "total $((SECONDS - T0)) s" | tee -a $o/steps.txt
cat $o/steps.txt; tail -25 $o/pytest.txt; cat $o/verify.txt | head -40
tar czf $OUT/call_t.tgz -C $o .
