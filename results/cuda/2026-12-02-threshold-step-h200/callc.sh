#!/usr/bin/env bash
# Usage (from the repository root on the device): callc.sh — call c (record.md): probe.py
# --unsorted (decode.py's mode) on HEAD's wheel (w1), the threshold step that keeps each
# lane's least value with 16 loads a lane in flight (w3) and with 32 (w4), order w1 w3 w4 w4 w3 w1,
# then the sorted default on w1 and w3.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
R=results/cuda/2026-12-02-threshold-step-h200
tar xJf devbin/pkt2.tar.xz -C devbin
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
for w in w1 w3 w4; do $PY -m pip install --no-deps --target /tmp/site_$w devbin/$w/*.whl > $L/pip_$w.txt 2>&1; done
i=0
for w in w1 w3 w4 w4 w3 w1; do i=$((i+1))
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w
  s=$SECONDS; PYTHONPATH=/tmp/site_$w:bench timeout 120 $PY $R/probe.py $L/probe_${w}_$i.json --unsorted > $L/probe_${w}_$i.txt 2>&1; echo "== probe --unsorted $w ($i) rc=$? $((SECONDS-s)) s" >> $S; cat $L/probe_${w}_$i.txt >> $S
done
for w in w1 w3; do i=$((i+1))
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w
  s=$SECONDS; PYTHONPATH=/tmp/site_$w:bench timeout 120 $PY $R/probe.py $L/probe_${w}_$i.json > $L/probe_${w}_$i.txt 2>&1; echo "== probe sorted $w ($i) rc=$? $((SECONDS-s)) s" >> $S; cat $L/probe_${w}_$i.txt >> $S
done
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
