#!/usr/bin/env bash
# Call AC (1 x H200): whole rows (one block per row, --strategy block) against the plan's
# split (auto) on few rows of 8192..32768 — the rows the plan splits for want of rows.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
o=/tmp/o; mkdir -p $o
B=devbin/new2/rtopk
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "binary $(cat devbin/new2/BINARY_COMMIT)"; } | tee $o/device.txt
for m in 10000 16384 24576 32768; do
  for n in 1 8 64 128 256 512 1024 4096; do
    for st in auto block; do
      timeout 60 $B bench cuda --n $n --m $m -k 64,512,2048 --reps 20 --strategy $st --json > $o/${st}_${n}x${m}.json 2>>$o/err.txt
    done
    python3 - $o/auto_${n}x${m}.json $o/block_${n}x${m}.json <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for x, y in zip(a, b):
    print(f"N={x['n']:>5} M={x['m']:>6} k={x['k']:>5}  auto {x['median_ms']*1e3:8.1f} us  block {y['median_ms']*1e3:8.1f} us  block/auto {y['median_ms']/x['median_ms']:.3f}")
PY
  done
done 2>&1 | tee $o/summary.txt
tar czf $OUT/call_ac.tgz -C $o .
