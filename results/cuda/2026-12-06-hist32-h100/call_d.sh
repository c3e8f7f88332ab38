#!/usr/bin/env bash
# Call d: clusters held at once with two and three blocks an SM (clusters_probe.py --per-sm),
# and a plan variant (bins10: blocks of at most 512 threads counted two an SM, for full
# clusters and fewer blocks alike) against the commit (bins9), f32 through the CLI, both builds
# in turn, twice: 16-64 rows of 40000-100000 at k = 512 and 2048.
set -uo pipefail
source bench/device_call.sh
bins 9; bins 10
step probe 60 $PY results/cuda/2026-12-06-hist32-h100/clusters_probe.py --per-sm
for r in 1 2; do
  for b in 9 10; do
    for m in 100000 81920 65536 49152 40000; do
      for n in 16 20 24 28 32 33 40 48 64; do
        env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b /tmp/bins$b/rtopk bench cuda --n $n --m $m -k 512,2048 --reps 30 --json 2>/dev/null \
          | $PY -c "import json,sys; s=sys.stdin.read(); d=json.loads(s[s.index('['):]); print($r, $b, $n, $m, ' '.join(f\"{r['k']}:{r['median_ms']*1000:.2f}\" for r in d if not r['sorted']))" >> $OUT/sweep.txt
      done
    done
  done
done
cat $OUT/probe.txt; wc -l $OUT/sweep.txt
