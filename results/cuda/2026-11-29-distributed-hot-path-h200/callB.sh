#!/usr/bin/env bash
# Call B (2 x H200): the benchmark twice (a throwaway case first), host time per rank.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
T0=$SECONDS
N=devbin/h5
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "build $(cat $N/COMMIT), rtopk/distributed.py and bench/distributed.py of the tree"; python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())"; } > $o/device.txt 2>&1
cat $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/site $N/rtopk-*.whl 2>&1 | tail -2
cp crates/rtopk-py/python/rtopk/distributed.py /tmp/site/rtopk/distributed.py
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx NCCL_NVLS_ENABLE=0
step() { local name=$1; shift; local s=$SECONDS; "$@"; echo "== $name rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt; }
for run in 1 2; do
  step dist2_$run bash -c "timeout 200 torchrun --standalone --nproc-per-node 2 bench/distributed.py --max-seconds 170 --out $o/distributed_2_run$run.json > $o/distributed_2_run$run.txt 2>&1"
  python3 bench/distributed.py --table $o/distributed_2_run$run.json > $o/distributed_2_run$run.md 2>&1
  cut -c1-250 $o/distributed_2_run$run.md
done
step host2 bash -c "timeout 120 torchrun --standalone --nproc-per-node 2 devbin/d36/dist_host2.py $o > $o/dist_host_2.txt 2>&1"
grep -v "^W11\|Warning\|warn\|return func" $o/dist_host_2.txt | grep -v allgather_base | head -80
echo "total $((SECONDS - T0)) s" | tee -a $o/steps.txt
tar czf $OUT/call_b.tgz -C $o .
