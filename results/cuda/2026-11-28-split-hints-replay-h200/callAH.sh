#!/usr/bin/env bash
# Call AH (1 x H200): the replay test's cases on one NCCL rank (no 2-GPU machine was lent):
# the assertion that each request holds its merge's graph, the answers, and a clean
# destroy_process_group with the graphs alive.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
N=devbin/new2
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "wheel $(cat $N/COMMIT), distributed.py and tests of the tree"; } | tee $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/site $N/rtopk-*.whl 2>&1 | tail -2
cp crates/rtopk-py/python/rtopk/distributed.py /tmp/site/rtopk/distributed.py
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
s=$SECONDS; timeout 120 python3 devbin/replay1.py > $o/replay1.txt 2>&1; echo "== replay1 rc=$? $((SECONDS-s)) s" | tee $o/steps.txt
grep -v "^W1128\|UserWarning\|return func" $o/replay1.txt | tail -8
tar czf $OUT/call_ah.tgz -C $o .
