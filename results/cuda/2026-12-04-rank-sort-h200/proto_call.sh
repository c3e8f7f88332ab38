#!/bin/bash
# On the device from the repository root: proto.py's checks, then Nsight Compute per case.
set -u
D=results/cuda/2026-12-04-rank-sort-h200
PY=/opt/torch/.venv/bin/python3
mkdir -p /tmp/wh $OUT/csv
tar xJf devbin/pkw14.tar.xz -C /tmp/wh
$PY -m pip install -q --no-deps --target /tmp/site /tmp/wh/w14/*.whl
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
$PY -c "import cupy; print(cupy.__version__)" > $OUT/cupy.txt 2>&1
timeout 120 $PY $D/proto.py > $OUT/check.txt 2>&1; echo "check rc=$?" >> $OUT/steps.txt
for c in 0 1 2 3 4 5 6; do
  timeout 60 ncu --profile-from-start off --metrics gpu__time_duration.sum --cache-control all --csv \
    $PY $D/proto.py $c > $OUT/csv/c$c.csv 2> $OUT/csv/c$c.err; echo "case $c rc=$?" >> $OUT/steps.txt
done
