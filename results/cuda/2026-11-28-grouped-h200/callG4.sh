#!/usr/bin/env bash
# Grouped selection: ncu kernel time with warm caches and the GPU at its own clocks (--clock-control none).
set -u
W=$(ls devbin/gw/*.whl | head -1)
python3 -m pip install -q --no-deps --target /tmp/site "$W" > /dev/null 2>&1
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
(nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u) > $OUT/device.txt
cat > /tmp/ncu_drive.py <<'PY'
import sys, torch, rtopk
n = int(sys.argv[1]); dt = getattr(torch, sys.argv[2])
x = torch.randn(n, 256, device="cuda").to(dt)
for _ in range(12):
    rtopk.grouped_topk(x, 8, 8, 4)
torch.cuda.synchronize()
PY
for dt in float32 bfloat16; do for n in 1 4 16 64 256; do
  timeout 60 ncu --kernel-name regex:rtopk_grouped_rows --launch-skip 2 --launch-count 10 --metrics gpu__time_duration.sum --cache-control none --clock-control none --csv python3 /tmp/ncu_drive.py $n $dt > /tmp/n.csv 2>/dev/null
  echo "$dt $n $(grep gpu__time_duration /tmp/n.csv | awk -F'","' '{print $NF}' | tr -d '",' | sort -n | awk '{a[NR]=$1} END {print "median_ns", a[int((NR+1)/2)], "min_ns", a[1], "n", NR}')"
done; done | tee $OUT/ncu_boost_summary.txt
