#!/usr/bin/env bash
# Call AB (2 x H200): the NCCL tests of rtopk.distributed after the review's guards on the
# replayed merge (the current device, the GPU kernel only, a size cap, a failed capture stays
# eager): the wheel of 77dd8e6 with this tree's rtopk/distributed.py over it (pure Python).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
N=devbin/new2
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "wheel $(cat $N/COMMIT), distributed.py and tests of the tree"; } | tee $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/site $N/rtopk-*.whl 2>&1 | tail -2
cp crates/rtopk-py/python/rtopk/distributed.py /tmp/site/rtopk/distributed.py
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx NCCL_NVLS_ENABLE=0
s=$SECONDS; (cd crates/rtopk-py && timeout 200 python3 -m pytest tests/test_distributed.py -q -rs -p no:cacheprovider > $o/pytest_distributed.txt 2>&1); echo "== pytest rc=$? $((SECONDS-s)) s" | tee $o/steps.txt
tail -4 $o/pytest_distributed.txt
tar czf $OUT/call_ab.tgz -C $o .
