#!/usr/bin/env bash
# Grouped selection: ncu's kernel time with warm caches (--cache-control none) beside the cold
# one of callG2.sh; and `python -m rtopk.cuda prepare` with the grouped units, from a cold cache.
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
for dt in float32 bfloat16; do for n in 1 4 16 64 256 4096 65536; do
  timeout 60 ncu --kernel-name regex:rtopk_grouped_rows --launch-skip 2 --launch-count 10 --metrics gpu__time_duration.sum --cache-control none --csv python3 /tmp/ncu_drive.py $n $dt > /tmp/n.csv 2>/dev/null
  echo "$dt $n $(grep gpu__time_duration /tmp/n.csv | awk -F'","' '{print $NF}' | tr -d '",' | sort -n | awk '{a[NR]=$1} END {print "median_ns", a[int((NR+1)/2)], "min_ns", a[1], "n", NR}')"
done; done | tee $OUT/ncu_warm_summary.txt
rm -rf /tmp/ptx_cold; export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_cold
( time python3 -m rtopk.cuda prepare ) > $OUT/prepare.txt 2>&1; cat $OUT/prepare.txt | tail -6
