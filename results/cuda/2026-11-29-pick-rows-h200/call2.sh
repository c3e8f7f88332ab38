#!/bin/bash
# Pick rows writing sorted output themselves (Params::sorted): the whole gpu_ragged suite (every
# family through the new parameter), the sanitizer, and the router bench against torch.topk and
# the bisection. Reads devbin/pick2/.
set -u
B=devbin/pick2
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
step() { local name=$1; shift; local t0=$(date +%s); "$@"; local rc=$?; echo "$name rc=$rc s=$(( $(date +%s) - t0 ))" >> $OUT/steps.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $OUT/device.txt
chmod +x $B/rtopk $B/gpu_ragged
step gpu_ragged timeout 280 $B/gpu_ragged --ignored --test-threads 4 > $OUT/gpu_ragged.txt 2>&1
python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(5)
for name, dt, m in [("f32_60", np.float32, 60), ("f32_300", np.float32, 300), ("f16_512", np.float16, 512), ("f16_9", np.float16, 9)]:
    x = rng.standard_normal((1000, m)).astype(dt)
    x[::7, ::5] = np.nan; x[::11, 1::9] = -np.inf; x[::13, 2::4] = -0.0; x[1::3, :3] = 1.5
    np.save(f"/tmp/{name}.npy", x)
PY
for f in f32_60 f32_300 f16_512 f16_9; do
  for flags in "-k 8" "-k 5 --smallest --sorted" "-k 3 --sorted"; do
    step "memcheck_${f}_${flags// /}" timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/rtopk select --algo cuda $flags --input /tmp/$f.npy --values /tmp/v.npy --indices /tmp/i.npy >> $OUT/sanitizer.txt 2>&1
  done
  step "racecheck_$f" timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $B/rtopk select --algo cuda -k 6 --sorted --input /tmp/$f.npy --values /tmp/v.npy --indices /tmp/i.npy >> $OUT/sanitizer.txt 2>&1
done
python3 -m pip install -q --no-deps --target /tmp/site $B/*.whl > /dev/null 2>&1
export PYTHONPATH=/tmp/site
step router timeout 240 python3 bench/router_rows.py --out /tmp/router --reps 20 > /tmp/router_log.txt 2>&1
cp /tmp/router/router_rows.md /tmp/router/router_rows.json $OUT/ 2>/dev/null
tail -3 /tmp/router_log.txt >> $OUT/steps.txt
