#!/usr/bin/env bash
# Call b: the change (bins17 / c17: plain f32 rows of 24576-32768 on 8 blocks, of 65536-131072
# that search from their range on 16) against HEAD (bins14 / c13, fd6c783): the GPU tests of
# cluster rows, the floor and the program on bins17; f32 rows whose plan moved, each build in
# turn, twice (1-32 rows of 20000-131072 at k = 20-2048, split rows of 500000 whose second
# stage moved, 1-2 rows of 2^21 at k = 64); clusters_check.py on both wheels (every answer
# against the package's CPU path, f32 and bf16; times).
set -uo pipefail
source bench/device_call.sh
bins 14; bins 17; wheel c13; wheel c17
T="env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t /tmp/bins17/gpu --ignored"
step gpu_cluster 200 $T cluster_rows
step gpu_floor 100 $T --exact many_rows_that_take_the_floor_match_bisect
step gpu_steps 150 $T --exact every_step_kind_of_the_program_matches_bisect_and_the_simulators_program
bench() { sweep_row $1 $2 /tmp/bins$2/rtopk $3 $4 $5; }  # bench ROUND BUILD N M KS
for r in 1 2; do
  for b in 14 17; do
    for n in 1 2 4 8 16 32; do
      for m in 20000 24576 32000 65536 100000 131072; do bench $r $b $n $m 20,64,512,1024,2048; done
    done
    for n in 8 16 32; do bench $r $b $n 500000 512,1024,2048; done
    for n in 1 2; do bench $r $b $n 2097152 64; done
  done
done
SH=1:32000,8:24576,32:32000,2:65536,1:100000,4:131072,8:100000
for w in c13 c17; do
  step check_$w 200 env $(build_env $w) $PY results/cuda/2026-12-06-h100-standing/clusters_check.py $OUT/check_$w.jsonl 15 f32 --shapes $SH --ks 64,512,1024,2048
done
cd $OUT && tar czf logs.tgz gpu_*.txt check_*.txt && rm -f gpu_*.txt check_*.txt && ls && cat steps.txt
