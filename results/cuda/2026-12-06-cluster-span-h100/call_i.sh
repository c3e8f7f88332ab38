#!/usr/bin/env bash
# Call i: wide clusters that guess, in an instantiation of their own (bins21: the kernel's
# GUESSES, the simulator's twin; plain unsorted f32 rows of 65536-131072 on wide clusters
# whether they guess or not): its GPU tests (cluster rows, the guessed bracket on portable and
# wide clusters against the simulator, the floor, the program), against the commit (bins19)
# on 1-8 rows x 65536-262144 x k = 512-4000, each in turn, twice (i/sweep.txt), and
# `rtopk verify cuda --quick --dtype float32`.
set -uo pipefail
source bench/device_call.sh
bins 19; bins 21
T="env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t /tmp/bins21/gpu --ignored"
step gpu_cluster 200 $T cluster_rows
step gpu_floor 100 $T --exact many_rows_that_take_the_floor_match_bisect
step gpu_steps 150 $T --exact every_step_kind_of_the_program_matches_bisect_and_the_simulators_program
bench() { sweep_row $1 $2 /tmp/bins$2/rtopk $3 $4 $5; }  # bench ROUND BUILD N M KS
for r in 1 2; do
  for b in 19 21; do
    for n in 1 2 4 8; do
      for m in 65536 100000 131072 163840 262144; do bench $r $b $n $m 512,1024,2048,4000; done
    done
  done
done
step verify_f32 300 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_21 /tmp/bins21/rtopk verify cuda --quick --dtype float32
cd $OUT && tar czf logs.tgz gpu_*.txt && rm -f gpu_*.txt && cat steps.txt && tail -14 verify_f32.txt
