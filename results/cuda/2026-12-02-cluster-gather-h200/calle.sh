#!/usr/bin/env bash
# Usage (from the repository root on the device): calle.sh — call e (record.md): gpu_ragged's
# wide_cluster_rows_on_the_gpu_equal_the_simulator as committed after call d (it now also
# asserts, on the simulator, that its rows count their rounds by warp ballots), devbin/u8.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
tar xJf devbin/pke.tar.xz -C devbin
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=devbin/u8; chmod +x $B/*
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_u8
s=$SECONDS; timeout 200 $B/gpu_ragged --ignored --test-threads 1 wide_cluster > $L/gpu_ragged_wide.txt 2>&1; echo "== gpu_ragged wide_cluster rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_ragged_wide.txt >> $S
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
