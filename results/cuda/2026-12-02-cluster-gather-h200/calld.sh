#!/usr/bin/env bash
# Usage (from the repository root on the device): calld.sh — call d (record.md): the committed
# tree's test binaries, devbin/u7 (rtopk's gpu_ragged and rtopk-cuda's gpu, built from deb5792):
# every gpu_ragged test and rtopk-cuda's cluster GPU test (the GPU against warp-sim, `bisect`
# and the oracle).
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
tar xJf devbin/pkd.tar.xz -C devbin
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=devbin/u7; chmod +x $B/*
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_u7
s=$SECONDS; timeout 400 $B/gpu_ragged --ignored --test-threads 1 > $L/gpu_ragged.txt 2>&1; echo "== gpu_ragged rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_ragged.txt >> $S
s=$SECONDS; timeout 120 $B/gpu --ignored --test-threads 1 cluster > $L/gpu_cluster.txt 2>&1; echo "== gpu cluster rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_cluster.txt >> $S
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
