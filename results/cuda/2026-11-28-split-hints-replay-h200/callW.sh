#!/usr/bin/env bash
# Call W (1 x H200): where the few-row, large-k time goes — each kernel's GPU time (ncu,
# gpu__time_duration.sum, caches flushed) beside the call's end-to-end time (rtopk bench cuda).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
o=/tmp/o; mkdir -p $o
B=devbin/new/rtopk
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "binary $(cat devbin/new/BINARY_COMMIT)"; } | tee $o/device.txt
for s in "1 16384 512" "1 163840 2048" "1 1048576 2048" "1 2097152 2048" "8 131072 2048" "64 32768 2048" "64 128256 50" "1 100000 2048"; do
  set -- $s
  tag=${1}x${2}_k${3}
  timeout 60 $B bench cuda --n $1 --m $2 -k $3 --reps 30 --json > $o/e2e_$tag.json 2> $o/e2e_$tag.err
  timeout 120 ncu --clock-control none --kernel-name regex:rtopk_ --launch-skip 12 --launch-count 12 \
     --cache-control all --metrics gpu__time_duration.sum --csv \
     $B bench cuda --n $1 --m $2 -k $3 --reps 4 > $o/ncu_$tag.csv 2> $o/ncu_$tag.err
  echo "== $tag"; grep -o '"median_ms":[^,]*' $o/e2e_$tag.json | head -2
  python3 - $o/ncu_$tag.csv <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows: print("no ncu rows"); sys.exit()
h = rows[0]; ki = h.index("Kernel Name"); vi = h.index("Metric Value"); ii = h.index("ID")
for r in rows[1:]:
    print(r[ii], r[ki][:60], r[vi])
PY
done 2>&1 | tee $o/summary.txt
tar czf $OUT/call_w.tgz -C $o .
