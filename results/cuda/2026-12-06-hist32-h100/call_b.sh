#!/usr/bin/env bash
# Call b: how many clusters an H100 holds at once by size (clusters_probe.py), and f32 cluster
# rows of 100000 and 49152 at k = 2048 from 8 to 40 rows (bins7, HEAD's build) — does a call
# whose clusters outnumber the device's slots run a second wave?
set -uo pipefail
source bench/device_call.sh
bins 7
step probe 60 $PY results/cuda/2026-12-06-hist32-h100/clusters_probe.py
for m in 100000 49152; do
  for n in 8 12 16 20 24 26 28 29 30 31 32 33 36 40; do
    env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_7 /tmp/bins7/rtopk bench cuda --n $n --m $m -k 2048 --reps 30 --json 2>/dev/null \
      | $PY -c "import json,sys; s=sys.stdin.read(); d=json.loads(s[s.index('['):]); print($n, $m, ' '.join(f\"{r['median_ms']*1000:.1f}\" for r in d if not r['sorted']))" >> $OUT/sweep.txt
  done
done
cat $OUT/probe.txt $OUT/sweep.txt
