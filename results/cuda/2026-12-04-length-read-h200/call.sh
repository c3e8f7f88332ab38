#!/bin/bash
# On the device, from the repository root: where the ragged whole-warp twins' time goes on
# full-length rows (record.md). Wheels (devbin/pkw*.tar.xz): w6 the landed build (29b7d5f's
# kernels); w7a a variant that skips the row's length read (valid for full rows only); w7b a
# variant whose warps run two rows each, the second row's length prefetched at the start.
# Times: Nsight Compute, caches flushed, calls.py and the 2026-12-03 ragged-twins record's
# table.py; torch.topk on the same rows in the same call.
set -u
D=results/cuda/2026-12-04-length-read-h200
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
mkdir -p /tmp/wh $OUT/csv
for w in ${WHEELS:-w6 w7a w7b}; do
    tar xJf devbin/pk$w.tar.xz -C /tmp/wh
    $PY -m pip install -q --no-deps --target /tmp/site_$w /tmp/wh/$w/*.whl
done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
run() {  # wheel shape mode
    local t=$SECONDS f=$2_$3-$1
    [ $3 = plain ] && f=$2_plain
    [ $3 = torch ] && f=$2_torch
    PYTHONPATH=/tmp/site_$1 RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$1 timeout 60 ncu --profile-from-start off \
        --metrics gpu__time_duration.sum --cache-control all --csv $PY $D/calls.py --shape $2 \
        --mode $3 --calls 7 > $OUT/csv/$f.csv 2> $OUT/csv/$f.err
    echo "$1 $2 $3 rc=$? $((SECONDS-t)) s" >> $OUT/steps.txt
}
for s in ${SHAPES:-16384x1024:64 16384x768:64 16384x512:32 16384x2048:64}; do
    run w6 $s plain; run w6 $s torch
    run w6 $s full; run w7a $s full; run w7b $s full
    run w6 $s lengths; run w7b $s lengths
done
$PY results/cuda/2026-12-03-ragged-twins-h200/table.py $OUT/csv > $OUT/table.md 2>&1
cd $OUT && tar czf csv.tgz csv && rm -rf csv
