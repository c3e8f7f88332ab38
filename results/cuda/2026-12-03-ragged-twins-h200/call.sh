#!/bin/bash
# On the device, from the repository root: per-kernel GPU time (Nsight Compute) of hinted
# against plain calls on split shapes, and of rows of their own length against full rows.
# Wheel: devbin/pkw1.tar.xz (this session's build of the commit named in record.md).
set -u
D=results/cuda/2026-12-03-ragged-twins-h200
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
mkdir -p /tmp/wh && tar xJf devbin/pkw1.tar.xz -C /tmp/wh
$PY -m pip install -q --no-deps --target /tmp/site_w1 /tmp/wh/w1/*.whl
export PYTHONPATH=/tmp/site_w1 RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
mkdir -p $OUT/csv
run() {  # shape mode
    ncu --profile-from-start off --metrics gpu__time_duration.sum --cache-control all --csv \
        $PY $D/calls.py --shape $1 --mode $2 --calls 7 > $OUT/csv/$1_$2.csv 2> $OUT/csv/$1_$2.err
    echo "$1 $2 rc=$?" >> $OUT/steps.txt
}
for s in 64x128256:50 128x100352:64 96x100000:512 32x163840:1024 8x500000:2048 1x1000000:2048; do
    run $s plain; run $s hinted
done
for s in 8x131072:2048 64x32768:2048 64x32768:512 16x100352:64; do
    run $s plain; run $s full; run $s quarter; run $s lengths
done
for s in 64x128256:50; do
    run $s full; run $s quarter; run $s lengths
done
$PY $D/table.py $OUT/csv > $OUT/table.md 2>&1
cd $OUT && tar czf csv.tgz csv && rm -rf csv
