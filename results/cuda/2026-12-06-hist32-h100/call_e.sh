#!/usr/bin/env bash
# Call e: the clusters held with 1-4 blocks an SM (clusters_probe.py --per-sm; bins11's limits
# read at open, `rtopk plan --json`), bins11's GPU tests of cluster rows, 16-bit histograms,
# the floor and the program, then bins11 (cluster shapes the device holds at once, counting
# the blocks an SM shares) against bins9 (3cd318c) through the CLI, both in turn, twice: 16-64
# f32 rows of 40000-100000 at k = 50, 512 and 2048; and clusters_check.py on the wheels c9 and
# c11 (every answer against the package's CPU path; times) on rows whose plan moved.
set -uo pipefail
source bench/device_call.sh
bins 9; bins 11; wheel c9; wheel c11
step probe 60 $PY results/cuda/2026-12-06-hist32-h100/clusters_probe.py --per-sm
step slots 60 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_11 /tmp/bins11/rtopk plan --n 32 --m 100000 -k 2048 --json
T="env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t /tmp/bins11/gpu --ignored"
step gpu_cluster 200 $T cluster_rows
step gpu_hist 150 $T --exact sixteen_bit_rows_by_histograms_match_bisect_and_the_simulator
step gpu_floor 100 $T --exact many_rows_that_take_the_floor_match_bisect
step gpu_steps 150 $T --exact every_step_kind_of_the_program_matches_bisect_and_the_simulators_program
for r in 1 2; do
  for b in 9 11; do
    for m in 100000 81920 65536 49152 40000; do
      for n in 16 20 24 28 32 33 40 48 64; do
        env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b /tmp/bins$b/rtopk bench cuda --n $n --m $m -k 50,512,2048 --reps 30 --json 2>/dev/null \
          | $PY -c "import json,sys; s=sys.stdin.read(); d=json.loads(s[s.index('['):]); print($r, $b, $n, $m, ' '.join(f\"{r['k']}:{r['median_ms']*1000:.2f}\" for r in d if not r['sorted']))" >> $OUT/sweep.txt
      done
    done
  done
done
SH=24:100000,32:100000,33:100000,32:81920,40:65536,48:65536,64:65536,64:49152,48:40000
for w in c9 c11; do
  step check_$w 300 env $(build_env $w) $PY results/cuda/2026-12-06-h100-standing/clusters_check.py $OUT/check_$w.jsonl 15 f32,bf16 --shapes $SH --ks 50,512,2048
done
cd $OUT && tar czf logs.tgz *.txt *.jsonl && find . -name "check_*" -delete && find . -name "*.txt" ! -name steps.txt ! -name device.txt ! -name sweep.txt ! -name slots.txt ! -name probe.txt -delete && ls
cat steps.txt probe.txt; $PY -c "import json; s=open('slots.txt').read(); print(json.loads(s[s.index('{'):])['limits'])"
