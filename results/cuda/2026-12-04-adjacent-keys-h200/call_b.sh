#!/bin/bash
# On the device, from the repository root (WHEELS="w16 wN" to pick others): share.py on w16 (the committed kernels) and w17 (a
# 16-bit value phase that reuses the counts at its bracket's keys and, uncounted, ends at
# adjacent keys; bf16 rows through the value phase instead of keys_only), alternated twice.
set -u
D=results/cuda/2026-12-04-adjacent-keys-h200
PY=/opt/torch/.venv/bin/python3
mkdir -p /tmp/wh $OUT
WHEELS=${WHEELS:-"w16 w17"}
for w in $WHEELS; do
    tar xJf devbin/pk$w.tar.xz -C /tmp/wh
    $PY -m pip install -q --no-deps --target /tmp/site_$w /tmp/wh/$w/*.whl
done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
for r in 1 2; do for w in $WHEELS; do
    RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w timeout 200 $PY $D/share.py --reps 15 ${SHARE_ARGS:-} > $OUT/share_${w}_$r.txt 2> $OUT/share_${w}_$r.err
    echo "$w $r rc=$?" >> $OUT/steps.txt
done; done
