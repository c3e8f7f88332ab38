#!/bin/bash
# The final build: bf16 rows without counts bisect their keys (keys_only), and pick rows. The
# whole gpu_ragged suite (the bf16 rows without counts among it, against the simulator, the
# bisection and the oracle), and the 16-bit grid with and without counts.
set -u
B=devbin/final
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
step() { local name=$1; shift; local t0=$(date +%s); "$@"; local rc=$?; echo "$name rc=$rc s=$(( $(date +%s) - t0 ))" >> $OUT/steps.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $OUT/device.txt
chmod +x $B/rtopk $B/gpu_ragged
step gpu_ragged timeout 240 $B/gpu_ragged --ignored --test-threads 4 > $OUT/gpu_ragged.txt 2>&1
python3 -m pip install -q --no-deps --target /tmp/site $B/*.whl > /dev/null 2>&1
export PYTHONPATH=/tmp/site
step dtypes16 timeout 300 python3 bench/dtypes16.py --quick --reps 20 --out /tmp/d16 > /tmp/d16_log.txt 2>&1
cp /tmp/d16/dtypes16.md /tmp/d16/dtypes16.json $OUT/ 2>/dev/null
tail -2 /tmp/d16_log.txt >> $OUT/steps.txt
