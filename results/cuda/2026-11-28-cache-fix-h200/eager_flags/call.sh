#!/usr/bin/env bash
# Call R (1 × H200): the CUDA-tensor error tests and the eager tests with this tree's _eager.py.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
N=devbin/new
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "build $(cat $N/COMMIT)"; } > $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/site $N/rtopk-*.whl 2>&1 | tail -2
cp crates/rtopk-py/python/rtopk/_eager.py /tmp/site/rtopk/_eager.py
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
(cd crates/rtopk-py && timeout 150 python3 -m pytest tests/test_torch_cuda.py -q -rs -p no:cacheprovider -k "errors or eager or graph or plain" > $o/pytest.txt 2>&1); echo "== pytest rc=$?" | tee -a $o/steps.txt
tail -3 $o/pytest.txt
tar czf $OUT/call_r.tgz -C $o .
