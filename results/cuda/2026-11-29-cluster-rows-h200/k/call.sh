#!/usr/bin/env bash
# call k (from the repository root on the device): the final tree's GPU test binaries (the
# kernels of 32a6729, call b's), the two tests whose route expectations changed, and the
# cluster-row test again.
set -uo pipefail
S=$OUT/steps.txt
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt
chmod +x devbin/k/gpu devbin/k/gpu_ragged
export RTOPK_CUDA_PTX_CACHE=/tmp/ptxk
s=$SECONDS; timeout 200 devbin/k/gpu --ignored cluster every_step > $OUT/gpu.txt 2>&1; echo "== gpu cluster, every_step rc=$? $((SECONDS-s)) s: $(grep 'test result' $OUT/gpu.txt)" >> $S
s=$SECONDS; timeout 200 devbin/k/gpu_ragged --ignored hinted_split > $OUT/gpu_ragged.txt 2>&1; echo "== gpu_ragged hinted_split rc=$? $((SECONDS-s)) s: $(grep 'test result' $OUT/gpu_ragged.txt)" >> $S
echo "== end" >> $S
