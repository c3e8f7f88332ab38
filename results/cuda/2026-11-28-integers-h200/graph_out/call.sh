#!/usr/bin/env bash
# Call V (1 x H200): out= under CUDA graph capture and replay (1713d8d's wheel; the test file of
# the working tree), float32 and int32 CUDA tensors.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
N=devbin/new
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "wheel $(cat $N/COMMIT)"; } | tee $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/site $N/rtopk-*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
(cd crates/rtopk-py && timeout 150 python3 -m pytest tests/test_torch_cuda.py -q -rs -p no:cacheprovider -k "out_under or graph_capture" > $o/pytest.txt 2>&1); echo "== pytest rc=$?" | tee -a $o/steps.txt
tail -15 $o/pytest.txt
tar czf $OUT/call_v.tgz -C $o .
