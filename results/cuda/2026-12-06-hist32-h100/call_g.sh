#!/usr/bin/env bash
# Call g: fewer cluster blocks at any k (bins12 / c12: fewer_blocks without its k gate) against
# the commit (bins11 / c11), where full clusters do not all run at once: 32-64 f32 rows of
# 49152-100000 at k = 50, 512 and 1024 through the CLI, both builds in turn, twice; and
# clusters_check.py on both wheels (every answer against the package's CPU path; times).
set -uo pipefail
source bench/device_call.sh
bins 11; bins 12; wheel c11; wheel c12
for r in 1 2; do
  for b in 11 12; do
    for m in 100000 81920 65536 49152; do
      for n in 32 33 40 48 64; do
        env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b /tmp/bins$b/rtopk bench cuda --n $n --m $m -k 50,512,1024 --reps 30 --json 2>/dev/null \
          | $PY -c "import json,sys; s=sys.stdin.read(); d=json.loads(s[s.index('['):]); print($r, $b, $n, $m, ' '.join(f\"{r['k']}:{r['median_ms']*1000:.2f}\" for r in d if not r['sorted']))" >> $OUT/sweep.txt
      done
    done
  done
done
SH=32:100000,64:49152,48:65536
for w in c11 c12; do
  step check_$w 200 env $(build_env $w) $PY results/cuda/2026-12-06-h100-standing/clusters_check.py $OUT/check_$w.jsonl 15 f32,bf16 --shapes $SH --ks 50,512,1024
done
cat steps.txt 2>/dev/null; cat $OUT/steps.txt
