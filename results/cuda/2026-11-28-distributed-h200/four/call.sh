#!/usr/bin/env bash
# Call N (4 × H200): where topk_split_rows' time goes on 2 and 4 GPUs; the benchmark on 4 GPUs.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
T0=$SECONDS
N=devbin/new
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvidia-smi topo -m; date -u +%Y-%m-%dT%H:%MZ; echo "build $(cat $N/COMMIT)"; python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())"; } > $o/device.txt 2>&1; cat $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/site $N/rtopk-*.whl 2>&1 | tail -2
cp crates/rtopk-py/python/rtopk/distributed.py /tmp/site/rtopk/distributed.py
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx NCCL_NVLS_ENABLE=0
step() { local name=$1; shift; local s=$SECONDS; "$@"; echo "== $name rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt; }
step prepare bash -c "timeout 90 $N/rtopk prepare > $o/prepare.txt 2>&1"
for g in 2 4; do step diag$g bash -c "timeout 120 torchrun --standalone --nproc-per-node $g devbin/dist_diag.py > $o/diag_$g.txt 2>&1"; done
step dist4 bash -c "timeout 300 torchrun --standalone --nproc-per-node 4 bench/distributed.py --max-seconds 240 --out $o/distributed_4.json > $o/distributed_4.txt 2>&1"
step table bash -c "python3 bench/distributed.py --table $o/distributed_4.json > $o/distributed_4.md 2>&1"
echo "total $((SECONDS - T0)) s" | tee -a $o/steps.txt
tar czf $OUT/call_n.tgz -C $o .
