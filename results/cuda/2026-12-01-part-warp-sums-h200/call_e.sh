#!/usr/bin/env bash
# call e (2 x H200, from the repository root): rtopk.distributed's split rows on this commit's
# wheel (devbin/wa: no shipped units, each kernel unit compiled on first use), issue 36 re-measured
# since the radix gate moved (rtopk-plan's takes_radix) — bench/distributed.py --only split,
# one GPU against two, every answer checked against one GPU (the method of
# results/cuda/2026-11-30-split-floor-h200/call_e.sh).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/le; mkdir -p $o
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())"; } > $o/device.txt 2>&1
python3 -m pip install -q --no-deps --target /tmp/site devbin/wa/rtopk-*.whl > $o/pip.txt 2>&1
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx NCCL_NVLS_ENABLE=0
s=$SECONDS; timeout 330 torchrun --standalone --nproc-per-node 2 bench/distributed.py --only split --max-seconds 300 --out $o/distributed_2.json > $o/distributed_2.txt 2>&1; echo "== dist2 rc=$? $((SECONDS-s)) s" >> $OUT/steps.txt
python3 bench/distributed.py --table $o/distributed_2.json > $o/distributed_2.md 2>&1
cut -c1-400 $o/distributed_2.md >> $OUT/steps.txt
cp $o/device.txt $o/distributed_2.md $OUT/
tar czf $OUT/logs.tgz -C $o .
