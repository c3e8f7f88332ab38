#!/usr/bin/env bash
# Call Z (2 or 4 x H200): rtopk.distributed's replayed merge — NCCL tests, host time per part
# (devbin/dist_host.py), the split-rows benchmark. The wheel of 77dd8e6 with this tree's
# rtopk/distributed.py over it (pure Python).
set -uo pipefail
G=${1:-2}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
T0=$SECONDS
N=devbin/new2
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "wheel $(cat $N/COMMIT), distributed.py of $(git rev-parse --short HEAD 2>/dev/null || echo the tree)"; python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())"; } | tee $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/site $N/rtopk-*.whl 2>&1 | tail -2
cp crates/rtopk-py/python/rtopk/distributed.py /tmp/site/rtopk/distributed.py
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx NCCL_NVLS_ENABLE=0
step() { local name=$1; shift; local s=$SECONDS; "$@"; echo "== $name rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt; }
if [ "$G" = 2 ]; then
  step pytest_nccl bash -c "cd crates/rtopk-py && timeout 200 python3 -m pytest tests/test_distributed.py -q -rs -p no:cacheprovider -k 'nccl or gpu' > $o/pytest_nccl.txt 2>&1"
  tail -4 $o/pytest_nccl.txt
fi
step host$G bash -c "timeout 120 torchrun --standalone --nproc-per-node $G devbin/dist_host.py > $o/dist_host_$G.txt 2>&1"
grep -v "^W1128\|Warning\|warn\|return func" $o/dist_host_$G.txt | head -60
step dist$G bash -c "timeout 240 torchrun --standalone --nproc-per-node $G bench/distributed.py --only split --max-seconds 200 --out $o/distributed_$G.json > $o/distributed_$G.txt 2>&1"
step table bash -c "python3 bench/distributed.py --table $o/distributed_$G.json > $o/distributed_$G.md 2>&1"
cut -c1-220 $o/distributed_$G.md
echo "total $((SECONDS - T0)) s" | tee -a $o/steps.txt
tar czf $OUT/call_z$G.tgz -C $o .
