#!/usr/bin/env bash
# Call e (from the repository root on the device, $OUT its output folder): the commit's GPU
# test of 16-bit rows by histograms (bins7: block, split and cluster rows, fewer-block rows
# included, against bisect and the simulator), and rtopk-cuda's cluster-row tests beside it.
set -uo pipefail
source bench/device_call.sh
bins 7
step gpu_test 80 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t /tmp/bins7/gpu --ignored --exact sixteen_bit_rows_by_histograms_match_bisect_and_the_simulator
step gpu_cluster 70 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t /tmp/bins7/gpu --ignored cluster_rows
tail -5 $OUT/gpu_test.txt; tail -12 $OUT/gpu_cluster.txt; cat $OUT/steps.txt
