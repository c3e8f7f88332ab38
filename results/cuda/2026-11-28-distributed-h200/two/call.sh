#!/usr/bin/env bash
# Call M/N (2 or 4 × H200): rtopk.distributed's benchmark (bench/distributed.py) on all GPUs
# of the machine, the Python recall and CUDA-tensor tests of the final wheel (call M only).
set -uo pipefail
G=${1:-2}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
T0=$SECONDS
N=devbin/new
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "build $(cat $N/COMMIT), distributed.py and bench from $(git rev-parse --short HEAD 2>/dev/null || echo the working tree)"; python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())"; } | tee $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/site $N/rtopk-*.whl 2>&1 | tail -2
# the pure-Python rtopk.distributed of this tree over the wheel's
cp crates/rtopk-py/python/rtopk/distributed.py /tmp/site/rtopk/distributed.py
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx NCCL_NVLS_ENABLE=0
step() { local name=$1; shift; local s=$SECONDS; "$@"; echo "== $name rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt; }
step prepare bash -c "timeout 90 $N/rtopk prepare > $o/prepare.txt 2>&1"
if [ "$G" = 2 ]; then
  step pytest bash -c "cd crates/rtopk-py && timeout 150 python3 -m pytest tests/test_recall.py tests/test_torch_cuda.py -q -rs -p no:cacheprovider > $o/pytest_cuda.txt 2>&1"
fi
step dist$G bash -c "timeout 420 torchrun --standalone --nproc-per-node $G bench/distributed.py --max-seconds 330 --out $o/distributed_$G.json > $o/distributed_$G.txt 2>&1"
step table bash -c "python3 bench/distributed.py --table $o/distributed_$G.json > $o/distributed_$G.md 2>&1"
echo "total $((SECONDS - T0)) s" | tee -a $o/steps.txt
tar czf $OUT/call_dist$G.tgz -C $o .
