#!/usr/bin/env bash
# Call a: cluster rows past 16384 on 16 blocks (bins15: wide clusters from 16385, where the
# wide shape holds them) and on 8 (bins16: every portable cluster of 8 blocks) against HEAD
# (bins14, fd6c783), f32, 1-8 rows of 24576-131072 at k = 20-2048, each build in turn, twice;
# then HEAD's GPU tests not run on its own binaries (16-bit histograms, rows of their own
# length).
set -uo pipefail
source bench/device_call.sh
bins 14; bins 15; bins 16
for r in 1 2; do
  for b in 14 15 16; do
    for n in 1 2 4 8; do
      for m in 24576 32000 49152 65536 100000 131072; do
        env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b /tmp/bins$b/rtopk bench cuda --n $n --m $m -k 20,64,512,1024,2048 --reps 30 --json 2>/dev/null \
          | $PY -c "import json,sys; s=sys.stdin.read(); d=json.loads(s[s.index('['):]); print($r, $b, $n, $m, ' '.join(f\"{r['k']}:{r['median_ms']*1000:.2f}\" for r in d if not r['sorted']))" >> $OUT/sweep.txt
      done
    done
  done
done
T="env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t /tmp/bins14/gpu --ignored"
step gpu_hist 150 $T --exact sixteen_bit_rows_by_histograms_match_bisect_and_the_simulator
step gpu_ragged 200 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t /tmp/bins14/gpu_ragged --ignored
cd $OUT && tar czf logs.tgz gpu_*.txt && rm -f gpu_*.txt && ls && cat steps.txt
