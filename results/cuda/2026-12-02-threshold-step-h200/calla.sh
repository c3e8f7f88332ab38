#!/usr/bin/env bash
# Usage (from the repository root on the device): calla.sh — call a (record.md): what the
# threshold output costs a decode step on HEAD's wheel (devbin/w0), probe.py.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
R=results/cuda/2026-12-02-threshold-step-h200
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
$PY -m pip install --no-deps --target /tmp/site_w0 devbin/w0/*.whl > $L/pip_w0.txt 2>&1
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w0
s=$SECONDS; PYTHONPATH=/tmp/site_w0:bench timeout 300 $PY $R/probe.py $L/probe_w0.json > $L/probe_w0.txt 2>&1; echo "== probe rc=$? $((SECONDS-s)) s" >> $S; cat $L/probe_w0.txt >> $S
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
