#!/usr/bin/env bash
# Call c: fewer blocks that the device holds at once (bins9 / c9: rtopk-plan's all_at_once and
# the limits' cluster slots read from the driver) against HEAD (bins7 / h5): the slots the
# binary reads, the cluster-row GPU tests, f32 rows of 65536-100000 at k = 2048 from 16 to 33
# rows through the CLI (both builds in turn, twice), and clusters_check.py (every answer
# against the package's CPU path, f32 and bf16, plain, sorted, ragged and hinted; times) on
# the rows the rule moves, both wheels.
set -uo pipefail
source bench/device_call.sh
bins 7; bins 9; wheel h5; wheel c9
step slots 60 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_9 /tmp/bins9/rtopk plan --n 24 --m 100000 -k 2048 --json
step gpu_cluster 200 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t /tmp/bins9/gpu --ignored cluster_rows
for r in 1 2; do
  for b in 7 9; do
    for m in 100000 81920 65536; do
      for n in 16 17 18 20 22 24 26 28 30 32 33; do
        env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b /tmp/bins$b/rtopk bench cuda --n $n --m $m -k 2048 --reps 30 --json 2>/dev/null \
          | $PY -c "import json,sys; s=sys.stdin.read(); d=json.loads(s[s.index('['):]); print($r, $b, $n, $m, ' '.join(f\"{r['median_ms']*1000:.2f}\" for r in d if not r['sorted']))" >> $OUT/sweep.txt
      done
    done
  done
done
SH=17:100000,18:100000,20:100000,22:100000,24:100000,26:100000,32:81920,20:81920,24:65536
for w in h5 c9; do
  step check_$w 240 env $(build_env $w) $PY results/cuda/2026-12-06-h100-standing/clusters_check.py $OUT/check_$w.jsonl 15 f32,bf16 --shapes $SH --ks 1024,2048
done
cd $OUT && tar czf logs.tgz *.txt *.jsonl && find . -name "check_*" -delete && find . -name "*.txt" ! -name steps.txt ! -name device.txt ! -name sweep.txt ! -name slots.txt -delete && ls
cat steps.txt; $PY -c "import json; s=open('slots.txt').read(); print(json.loads(s[s.index('{'):])['limits'])"
