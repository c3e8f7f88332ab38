#!/usr/bin/env bash
# Call O/P (2 or 4 × H200): bench/distributed.py with the CUDA-graph column, and (2 GPUs) the
# NCCL tests of tests/test_distributed.py (no host synchronisation; capture and replay).
set -uo pipefail
G=${1:-2}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
T0=$SECONDS
N=devbin/new
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "build $(cat $N/COMMIT)"; python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())"; } > $o/device.txt 2>&1; cat $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/site $N/rtopk-*.whl 2>&1 | tail -2
cp crates/rtopk-py/python/rtopk/distributed.py /tmp/site/rtopk/distributed.py
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx NCCL_NVLS_ENABLE=0
step() { local name=$1; shift; local s=$SECONDS; "$@"; echo "== $name rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt; }
if [ "$G" = 2 ]; then
  step pytest_nccl bash -c "cd crates/rtopk-py && timeout 150 python3 -m pytest tests/test_distributed.py -q -rs -p no:cacheprovider -k nccl > $o/pytest_nccl.txt 2>&1"
fi
step dist$G bash -c "timeout 330 torchrun --standalone --nproc-per-node $G bench/distributed.py --max-seconds 240 --out $o/distributed_$G.json > $o/distributed_$G.txt 2>&1"
step table bash -c "python3 bench/distributed.py --table $o/distributed_$G.json > $o/distributed_$G.md 2>&1"
echo "total $((SECONDS - T0)) s" | tee -a $o/steps.txt
tar czf $OUT/call_o$G.tgz -C $o .
