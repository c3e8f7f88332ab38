#!/usr/bin/env bash
# Usage (from the repository root on the device): final.sh — call c (record.md): the committed
# tree's build, devbin/t2 (the rtopk binary, rtopk-cuda's lib and gpu test binaries, rtopk's
# gpu_ragged test binary), against devbin/t1/rtopk (d66eb35's kernels): every unit's NVRTC
# build, rtopk-cuda's cluster GPU tests and gpu_ragged's (GPU against bisect and warp-sim),
# `rtopk verify cuda --quick` of f32 rows, the CLI's cluster selects against bisect
# (../2026-12-01-cluster-narrow-h200/select_check.sh), then both builds timed alternately
# (../2026-12-02-step-trigger-h200/variant_ab.sh: single shapes, the grids twice) and
# torch.topk on the single shapes (bench/torch_topk.py).
set -uo pipefail
T=results/cuda/2026-12-02-step-trigger-h200
S=$OUT/steps.txt; L=/tmp/ld; mkdir -p $L
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
B=devbin/t2; chmod +x $B/* devbin/t1/rtopk
s=$SECONDS; timeout 200 $B/rtopk_cuda --ignored every_unit_compiles > $L/units.txt 2>&1; echo "== units rc=$? $((SECONDS-s)) s" >> $S; grep -E "test result|panicked" $L/units.txt | head -5 >> $S
s=$SECONDS; timeout 200 $B/gpu --ignored --test-threads 1 cluster > $L/gpu_cluster.txt 2>&1; echo "== gpu cluster rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_cluster.txt | head >> $S
s=$SECONDS; timeout 240 $B/gpu_ragged --ignored --test-threads 1 cluster > $L/gpu_ragged_cluster.txt 2>&1; echo "== gpu_ragged cluster rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_ragged_cluster.txt | head -20 >> $S
s=$SECONDS; timeout 200 $B/rtopk verify cuda --quick --dtype float32 > $L/verify.txt 2>&1; echo "== verify rc=$? $((SECONDS-s)) s" >> $S; grep -E "verify cuda on|MISMATCH" $L/verify.txt | head -3 | cut -c1-600 >> $S
bash results/cuda/2026-12-01-cluster-narrow-h200/select_check.sh $B/rtopk $L $S
bash $T/variant_ab.sh devbin/t1/rtopk $B/rtopk 2 \
  "1x40000:2048 1x49152:2048 1x65536:512 1x100000:2048 1x131072:1024 1x163840:2048 1x262144:2048 1x262144:512 1x262144:256 8x100000:2048 4x262144:1024 1x500000:2048 16x131072:1024 1x128256:1024"
$PY $T/one_table.py $L cells > $L/ones.json
s=$SECONDS; timeout 200 $PY bench/torch_topk.py $L/ones.json > $L/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
$PY $T/torch_table.py $L >> $S 2>&1
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
