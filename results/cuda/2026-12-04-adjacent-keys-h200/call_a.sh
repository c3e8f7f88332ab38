#!/bin/bash
# On the device, from the repository root: the search's share (share.py) on the committed
# kernels (wheel w16).
set -u
D=results/cuda/2026-12-04-adjacent-keys-h200
PY=/opt/torch/.venv/bin/python3
mkdir -p /tmp/wh $OUT
tar xJf devbin/pkw16.tar.xz -C /tmp/wh
$PY -m pip install -q --no-deps --target /tmp/site_w16 /tmp/wh/w16/*.whl
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
RTOPK_CUDA_PTX_CACHE=/tmp/ptx PYTHONPATH=/tmp/site_w16 timeout 500 $PY $D/share.py --reps 15 > $OUT/share.txt 2> $OUT/share.err
echo "rc=$?" >> $OUT/share.err
