#!/usr/bin/env bash
# Call h: the commit's build (bins13 / c13: full clusters and fewer blocks the device holds at
# once, counting the blocks an SM shares; fewer blocks at any k where they all run at once)
# against bins11 / c11 (call e's): its GPU tests of cluster rows, 16-bit histograms, the floor
# and the program; the cells whose plan moved through the CLI (f32, both builds in turn,
# twice); clusters_check.py on both wheels (every answer against the package's CPU path, f32
# and bf16; times).
set -uo pipefail
source bench/device_call.sh
bins 11; bins 13; wheel c11; wheel c13
T="env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t /tmp/bins13/gpu --ignored"
step gpu_cluster 200 $T cluster_rows
step gpu_hist 150 $T --exact sixteen_bit_rows_by_histograms_match_bisect_and_the_simulator
step gpu_floor 100 $T --exact many_rows_that_take_the_floor_match_bisect
step gpu_steps 150 $T --exact every_step_kind_of_the_program_matches_bisect_and_the_simulators_program
for r in 1 2; do
  for b in 11 13; do
    for s in 32:100000 33:100000 64:49152 48:65536 64:65536 17:100000 40:65536; do
      n=${s%:*}; m=${s#*:}
      env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b /tmp/bins$b/rtopk bench cuda --n $n --m $m -k 50,512,1024,2048 --reps 30 --json 2>/dev/null \
        | $PY -c "import json,sys; s=sys.stdin.read(); d=json.loads(s[s.index('['):]); print($r, $b, $n, $m, ' '.join(f\"{r['k']}:{r['median_ms']*1000:.2f}\" for r in d if not r['sorted']))" >> $OUT/sweep.txt
    done
  done
done
SH=32:100000,64:49152,48:65536,64:65536
for w in c11 c13; do
  step check_$w 200 env $(build_env $w) $PY results/cuda/2026-12-06-h100-standing/clusters_check.py $OUT/check_$w.jsonl 15 f32,bf16 --shapes $SH --ks 50,512,1024,2048
done
cd $OUT && tar czf logs.tgz gpu_*.txt check_*.txt && rm -f gpu_*.txt check_*.txt && ls && cat steps.txt
