#!/usr/bin/env bash
# Usage (from the repository root on the device): calld.sh — call d (record.md): the committed
# tree's GPU tests (devbin/t9: rtopk, rtopk-cuda's gpu and rtopk's gpu_ragged test binaries):
# gpu's cluster tests (plain cluster rows, the guessed bracket, block_part's counts),
# gpu_ragged's hinted and cluster tests (the window without counts against warp-sim), the
# guessed-bracket check of the CLI, then `rtopk verify cuda --quick --dtype float32`.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
tar xJf devbin/pkj.tar.xz -C devbin
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
B=devbin/t9; chmod +x $B/*
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t9
s=$SECONDS; timeout 150 $B/gpu --ignored --test-threads 1 cluster > $L/gpu_cluster.txt 2>&1; echo "== gpu cluster rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_cluster.txt | cut -c1-400 >> $S
s=$SECONDS; timeout 200 $B/gpu_ragged --ignored --test-threads 1 hinted > $L/gpu_ragged_hinted.txt 2>&1; echo "== gpu_ragged hinted rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_ragged_hinted.txt | cut -c1-600 >> $S
s=$SECONDS; timeout 60 $PY results/cuda/2026-12-02-round-levels-h200/guess_check.py $B/rtopk /tmp/gc 40 > $L/guess_check.txt 2>&1; echo "== guess_check rc=$? $((SECONDS-s)) s" >> $S; tail -5 $L/guess_check.txt >> $S
s=$SECONDS; timeout 200 $B/rtopk verify cuda --quick --dtype float32 > $L/verify_f32.txt 2>&1; echo "== verify float32 rc=$? $((SECONDS-s)) s" >> $S; grep -E "verify cuda on|MISMATCH|rror|cases" $L/verify_f32.txt | head -5 | cut -c1-600 >> $S
tail -3 $L/verify_f32.txt >> $S
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
