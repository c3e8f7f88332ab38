#!/bin/bash
# Pick rows on the GPU: tests, sanitizer, pick against the bisection (forced strategies), and
# rtopk.topk against torch.topk on router rows. Reads devbin/pick/ (built from the tree).
set -u
B=devbin/pick
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
step() { local name=$1; shift; local t0=$(date +%s.%N); "$@"; local rc=$?; echo "$name rc=$rc s=$(echo "$(date +%s.%N) - $t0" | bc)" >> $OUT/steps.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $OUT/device.txt
chmod +x $B/rtopk $B/gpu_ragged
# 1. the GPU tests of pick rows (compiles the pick units and the bisection's)
step gpu_pick timeout 200 $B/gpu_ragged --ignored pick --test-threads 2 > $OUT/gpu_pick.txt 2>&1
# 2. sanitizer: f32 and f16 router rows with specials through the CLI
python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(5)
for name, dt, m in [("f32_60", np.float32, 60), ("f32_300", np.float32, 300), ("f16_512", np.float16, 512), ("f16_9", np.float16, 9)]:
    x = rng.standard_normal((1000, m)).astype(dt)
    x[::7, ::5] = np.nan; x[::11, 1::9] = -np.inf; x[::13, 2::4] = -0.0; x[1::3, :3] = 1.5
    np.save(f"/tmp/{name}.npy", x)
PY
for f in f32_60 f32_300 f16_512 f16_9; do
  for tool in memcheck racecheck; do
    step san_${tool}_$f timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/rtopk select --algo cuda -k 8 --input /tmp/$f.npy --values /tmp/v.npy --indices /tmp/i.npy >> $OUT/sanitizer.txt 2>&1
  done
  step san_sorted_$f timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/rtopk select --algo cuda -k 5 --smallest --sorted --input /tmp/$f.npy --values /tmp/v.npy --indices /tmp/i.npy >> $OUT/sanitizer.txt 2>&1
done
# 3. pick (auto) against the bisection's families forced, 32 MB of input per shape
mkdir -p /tmp/ab
for dt in bfloat16 float16 float32; do
  bytes=2; [ $dt = float32 ] && bytes=4
  for m in 8 32 64 128 256 512; do
    n=$(( 33554432 / (m * bytes) ))
    for s in auto quarter half warp; do
      [ $s = quarter ] && [ $m -gt 512 ] && continue
      timeout 60 $B/rtopk bench cuda --n $n --m $m -k 1,2,4,8 --dtype $dt --strategy $s --reps 15 --json > /tmp/ab/${dt}_${m}_${s}.json 2>>/tmp/ab/err.txt
      echo "$dt $m $s rc=$?" >> /tmp/ab/rc.txt
    done
  done
done
tar czf $OUT/ab.tgz -C /tmp ab
# 4. rtopk.topk against torch.topk on router rows
python3 -m pip install -q --no-deps --target /tmp/site $B/*.whl > /dev/null 2>&1
export PYTHONPATH=/tmp/site
step router timeout 200 python3 bench/router_rows.py --out /tmp/router --reps 20 > /tmp/router_log.txt 2>&1
cp /tmp/router/router_rows.md $OUT/ 2>/dev/null; cp /tmp/router/router_rows.json $OUT/ 2>/dev/null
tail -5 /tmp/router_log.txt >> $OUT/steps.txt
