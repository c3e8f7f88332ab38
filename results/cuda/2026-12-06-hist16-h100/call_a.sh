#!/usr/bin/env bash
# Call a (from the repository root on the device, $OUT its output folder): the histogram search
# of 16-bit cluster rows (h1/bins5) against HEAD's kernels (s4, 49c4e63's cluster code):
# every answer of hist16_check.py's rows against the package's CPU path, the GPU test of the
# path (rtopk-cuda's gpu test binary), then plain calls on few long rows, the two builds in turn.
set -uo pipefail
source bench/device_call.sh
R=results/cuda/2026-12-06-hist16-h100
W=/tmp/ca; mkdir -p $W
wheel h1; wheel s4; bins 5
OUT=$W step check_h1 240 env $(build_env h1) $PY $R/hist16_check.py check $W/check_h1.jsonl
OUT=$W step gpu_test 240 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t /tmp/bins5/gpu --ignored --exact sixteen_bit_cluster_rows_by_histograms_match_bisect_and_the_simulator
i=0
for b in h1 s4 h1 s4; do
  i=$((i + 1))
  OUT=$W step time_${b}_$i 150 env $(build_env $b) $PY $R/hist16_check.py time $W/time_${b}_$i.jsonl 15
done
cp $OUT/device.txt $W/
tar czf $OUT/a.tgz -C $W .
cat $W/steps.txt
