#!/usr/bin/env bash
# Call Q (2 × H200): the whole Python suite on CUDA tensors (and NCCL) with the final wheel and
# this tree's rtopk.distributed.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
N=devbin/new
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "build $(cat $N/COMMIT)"; } > $o/device.txt 2>&1; cat $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/site $N/rtopk-*.whl 2>&1 | tail -2
cp crates/rtopk-py/python/rtopk/distributed.py /tmp/site/rtopk/distributed.py
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx NCCL_NVLS_ENABLE=0 RTOPK_BIN=$PWD/$N/rtopk
s=$SECONDS; $N/rtopk prepare > $o/prepare.txt 2>&1; echo "== prepare rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt
s=$SECONDS; (cd crates/rtopk-py && timeout 480 python3 -m pytest tests -q -rs -p no:cacheprovider --durations=15 > $o/pytest.txt 2>&1); echo "== pytest rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt
tar czf $OUT/call_q.tgz -C $o .
