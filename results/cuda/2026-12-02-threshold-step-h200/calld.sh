#!/usr/bin/env bash
# Usage (from the repository root on the device): calld.sh — call d (record.md): per-kernel
# times of plain, threshold and hinted calls on HEAD's wheel (devbin/w1), thr_prof.py.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
R=results/cuda/2026-12-02-threshold-step-h200
tar xJf devbin/pkt2.tar.xz -C devbin w1
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
$PY -m pip install --no-deps --target /tmp/site_w1 devbin/w1/*.whl > $L/pip_w1.txt 2>&1
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w1
s=$SECONDS; PYTHONPATH=/tmp/site_w1 timeout 200 $PY $R/thr_prof.py $L/thr_prof.json 1x16384:512 1x32768:2048 8x32768:2048 64x32768:2048 8x131072:2048 64x128256:50 1x1048576:2048 > $L/thr_prof.txt 2>&1; echo "== thr_prof rc=$? $((SECONDS-s)) s" >> $S; cat $L/thr_prof.txt >> $S
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
