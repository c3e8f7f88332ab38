#!/usr/bin/env bash
# Usage (from the repository root on the device): call.sh — this record's call (record.md).
# devbin/t1: the record's build (the rtopk binary, rtopk-cuda's lib and gpu test binaries) and
# devbin/t1/kv, its kernels/ with trigger.patch applied (`patch -p4` in a copy). The build's
# checks (every unit's NVRTC build, rtopk-cuda's cluster GPU test), then the variant against the
# build's own kernels (variant_ab.sh): single shapes of several steps, the grids three times.
set -uo pipefail
T=results/cuda/2026-12-02-step-trigger-h200
S=$OUT/steps.txt; L=/tmp/ld; mkdir -p $L
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=devbin/t1; chmod +x $B/*
s=$SECONDS; timeout 200 $B/rtopk_cuda --ignored every_unit_compiles > $L/units.txt 2>&1; echo "== units rc=$? $((SECONDS-s)) s" >> $S; grep -E "test result|panicked" $L/units.txt | head -5 >> $S
s=$SECONDS; timeout 200 $B/gpu --ignored --test-threads 1 cluster > $L/gpu_cluster.txt 2>&1; echo "== gpu cluster rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_cluster.txt | head >> $S
bash $T/variant_ab.sh $B/rtopk $B/kv 3 \
  "1x2097152:2048 1x1048576:2048 16x1048576:2048 8x1048576:512 1x16777216:64 1x268435456:1024 1x262144:2048 64x128256:50 128x32768:1024" \
  "1048576x256:128 4096x8192:512 64x128256:1024 1x128256:1024"
echo "== end $SECONDS s" >> $S
