#!/bin/bash
# bf16 rows bisecting their keys where no counts are asked (keys_only): the 16-bit grid,
# rtopk with and without counts (the value phase, and the keys from the start) and torch.topk.
set -u
B=devbin/keys
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
step() { local name=$1; shift; local t0=$(date +%s); "$@"; local rc=$?; echo "$name rc=$rc s=$(( $(date +%s) - t0 ))" >> $OUT/steps.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $OUT/device.txt
python3 -m pip install -q --no-deps --target /tmp/site $B/*.whl > /dev/null 2>&1
export PYTHONPATH=/tmp/site
step dtypes16 timeout 400 python3 bench/dtypes16.py --quick --reps 20 --out /tmp/d16 > /tmp/d16_log.txt 2>&1
cp /tmp/d16/dtypes16.md /tmp/d16/dtypes16.json $OUT/ 2>/dev/null
tail -3 /tmp/d16_log.txt >> $OUT/steps.txt
