#!/usr/bin/env bash
# Review: rtopk.topk against torch.topk on CUDA tensors (each case checked, then timed) and the
# grouped benchmark, both through bench/spin_timing.py.
set -u
W=$(ls devbin/gw2/*.whl | head -1)
python3 -m pip install -q --no-deps --target /tmp/site "$W" > /dev/null 2>&1
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
(nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u) > $OUT/device.txt
timeout 240 python3 bench/torch_op.py --quick --out $OUT > $OUT/torch_op.txt 2>&1; echo "rc=$?" >> $OUT/torch_op.txt
tail -25 $OUT/torch_op.txt
timeout 100 python3 bench/grouped.py --quick --out $OUT/grouped.jsonl > $OUT/grouped.txt 2>&1; echo "rc=$?" >> $OUT/grouped.txt
cat $OUT/grouped.txt
