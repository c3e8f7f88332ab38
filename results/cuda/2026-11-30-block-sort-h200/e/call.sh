#!/usr/bin/env bash
# call e (from the repository root on the device): 40d0200's `gpu_ragged` test binary (crates/rtopk,
# devbin/w4), units built on the device: the ragged, hinted and split rows on the GPU against the
# simulator and the oracle (every ignored test of the binary).
set -uo pipefail
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt
chmod +x devbin/w4/gpu_ragged
export RTOPK_CUDA_PTX_CACHE=/tmp/ptxc
s=$SECONDS
timeout 330 devbin/w4/gpu_ragged --ignored --test-threads 4 > $OUT/gpu_ragged.txt 2>&1; echo "rc=$? $((SECONDS-s)) s" >> $OUT/gpu_ragged.txt
tail -5 $OUT/gpu_ragged.txt
