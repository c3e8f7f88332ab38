#!/usr/bin/env bash
# Call a (from the repository root on the device, $OUT its output folder): f32 rows by
# histograms (bins8) against HEAD's kernels (bins7, 662d4a3): the GPU tests of the path, then
# the f32 large-k grids and Appendix B through the CLI, both builds in turn, twice.
set -uo pipefail
source bench/device_call.sh
bins 7; bins 8
T="env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t /tmp/bins8/gpu --ignored"
step gpu_hist 200 $T --exact float_rows_by_histograms_match_bisect_and_the_simulator
step gpu_cluster 150 $T cluster_rows
step gpu_floor 100 $T --exact many_rows_that_take_the_floor_match_bisect
step gpu_steps 150 $T --exact every_step_kind_of_the_program_matches_bisect_and_the_simulators_program
for r in 1 2; do
  for b in 7 8; do
    step grid_b${b}_r$r 150 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b /tmp/bins$b/rtopk bench cuda --grid indexer,sampler --reps 20 --json
  done
done
for b in 7 8; do
  step appb_b$b 150 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b /tmp/bins$b/rtopk bench cuda --grid appendix-b --reps 20 --json
done
cd $OUT && tar czf logs.tgz *.txt && find . -name "*.txt" ! -name steps.txt ! -name device.txt -delete && ls
cat $OUT/steps.txt
