#!/usr/bin/env bash
# call d (2 x H200, from the repository root): rtopk.distributed's split rows with chunk-major
# chunks and the floor on many rows (devbin/w8: the committed tree's wheel) against the wheel
# before (devbin/w7: 828f3b7's, whose floor only rows of 2^25 and more took) —
# bench/distributed.py --only split, one GPU against two, every answer checked against one
# GPU, new then old.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/le; mkdir -p $o
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())"; } > $o/device.txt 2>&1
for w in w8 w7; do
  python3 -m pip install -q --no-deps --target /tmp/site_$w devbin/$w/rtopk-*.whl > $o/pip_$w.txt 2>&1
  s=$SECONDS
  PYTHONPATH=/tmp/site_$w RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w NCCL_NVLS_ENABLE=0 timeout 200 torchrun --standalone --nproc-per-node 2 bench/distributed.py --only split --max-seconds 180 --out $o/distributed_$w.json > $o/distributed_$w.txt 2>&1
  echo "== dist $w rc=$? $((SECONDS-s)) s" >> $OUT/steps.txt
  PYTHONPATH=/tmp/site_$w python3 bench/distributed.py --table $o/distributed_$w.json > $o/distributed_$w.md 2>&1
  cut -c1-300 $o/distributed_$w.md >> $OUT/steps.txt
done
cp $o/device.txt $OUT/
tar czf $OUT/logs.tgz -C $o .
