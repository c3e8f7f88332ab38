#!/bin/bash
# On the device, from the repository root: the threshold launch with several rows a warp
# (record.md). `w10` (the launch as before: a warp a row) against `w11` (the commit that lands
# it). Part `a`: the GPU ragged tests (gpu_ragged of w11's code, which compares every threshold
# with the simulator's and bisect's), the package's CUDA ragged tests, thresholds.py, then
# kernel times of calls that ask for thresholds (Nsight Compute, caches flushed: the
# 2026-12-04 length-read record's calls.py, the 2026-12-03 ragged-twins record's table.py).
# Part `c` (`w12`: the rule that lands — a warp a row while the rows fit the device's warps):
# the tests again on w12's code, then w10, w11 and w12 on a few rows and many.
# Part `d` (`w13`: the commit that lands it, f37bf69): the tests again, then w10 and w13.
# Part `e` (`w14`: w13 with the kernel's row group and place by a shift and a mask, not a
# division by lanes_per_row): thresholds.py, then w13 and w14 alternated twice.
# Part `b`: more shapes, torch.topk on two of them, and two variants of the plan's lane rule
# (`w11v4`, `w11v8`: w11 with `threshold_lanes_per_row` reading 4 or 8 values a lane, not 16;
# built from w11's tree with that one line changed, record.md).
set -u
D=results/cuda/2026-12-04-threshold-rows-h200
L=results/cuda/2026-12-04-length-read-h200
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
mkdir -p /tmp/wh $OUT/csv
WHEELS="w10 w11"
[ "$1" = b ] && WHEELS="w10 w11 w11v4 w11v8"
[ "$1" = c ] && WHEELS="w10 w11 w12"
[ "$1" = d ] && WHEELS="w10 w13"
[ "$1" = e ] && WHEELS="w13 w14"
for w in $WHEELS; do
    tar xJf devbin/pk$w.tar.xz -C /tmp/wh
    $PY -m pip install -q --no-deps --target /tmp/site_$w /tmp/wh/$w/*.whl
done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
git log -1 --format=%H > $OUT/commit.txt 2>/dev/null
run() {  # wheel shape mode
    local t=$SECONDS f=$2_$3-$1
    PYTHONPATH=/tmp/site_$1 RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$1 timeout 60 ncu --profile-from-start off \
        --metrics gpu__time_duration.sum --cache-control all --csv $PY $L/calls.py --shape $2 \
        --mode $3 --calls 7 > $OUT/csv/$f.csv 2> $OUT/csv/$f.err
    echo "$1 $2 $3 rc=$? $((SECONDS-t)) s" >> $OUT/steps.txt
}
tests() {  # wheel thresholds.py's limit: gpu_ragged (the binary carried), thresholds.py, pytest
    local s=$SECONDS
    timeout 200 devbin/gpu_ragged --include-ignored --test-threads 8 > $OUT/gpu_ragged.txt 2>&1
    echo "gpu_ragged rc=$? $((SECONDS-s)) s: $(grep 'test result' $OUT/gpu_ragged.txt)" >> $OUT/steps.txt
    s=$SECONDS; PYTHONPATH=/tmp/site_$1 RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$1 timeout $2 $PY $D/thresholds.py > $OUT/thresholds.txt 2>&1
    echo "thresholds.py rc=$? $((SECONDS-s)) s: $(tail -1 $OUT/thresholds.txt)" >> $OUT/steps.txt
    s=$SECONDS; (cd crates/rtopk-py && PYTHONPATH=/tmp/site_$1 RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$1 timeout 150 $PY -m pytest -q -rs -p no:cacheprovider tests/test_ragged.py -k cuda > $OUT/pytest_ragged.txt 2>&1); echo "pytest rc=$? $((SECONDS-s)) s: $(tail -1 $OUT/pytest_ragged.txt)" >> $OUT/steps.txt
}
if [ "$1" = a ]; then
    tests w11 120
    for s in 1048576x256:16 16384x1024:64; do
        for w in w10 w11; do run $w $s plain; done
    done
elif [ "$1" = c ]; then
    tests w12 150
    for s in 64x128256:50 4096x1024:64 16384x1024:64 1048576x256:16; do
        for w in w10 w11 w12; do run $w $s plain; done
    done
elif [ "$1" = d ]; then
    tests w13 150
    for s in 1048576x256:16 65536x128:8 16384x1024:64 4096x1024:64 64x128256:50; do
        for w in w10 w13; do run $w $s plain; done
    done
    for s in 65536x128:8 16384x1024:64; do run w13 $s torch; done
elif [ "$1" = e ]; then
    s=$SECONDS; PYTHONPATH=/tmp/site_w14 RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w14 timeout 150 $PY $D/thresholds.py > $OUT/thresholds.txt 2>&1
    echo "thresholds.py rc=$? $((SECONDS-s)) s: $(tail -1 $OUT/thresholds.txt)" >> $OUT/steps.txt
    for s in 4096x1024:64 64x128256:50 16384x1024:64 1048576x256:16; do
        for w in w13 w14 w13 w14; do run $w $s plain; mv $OUT/csv/$s\_plain-$w.csv $OUT/csv/$s\_plain-$w-$SECONDS.csv; done
    done
else
    for s in 1048576x256:16 1048576x256:64 65536x128:8 16384x2048:128; do
        for w in w10 w11 w11v4 w11v8; do run $w $s plain; done
    done
    for s in 64x128256:50 64x32768:512 8x131072:2048; do
        for w in w10 w11; do run $w $s plain; done
    done
    for w in w10 w11; do run $w 16384x1024:64 lengths; done
    for s in 1048576x256:16 1048576x256:64; do run w11 $s torch; done
fi
$PY results/cuda/2026-12-03-ragged-twins-h200/table.py $OUT/csv > $OUT/table.md 2>&1
cd $OUT && tar czf csv.tgz csv && rm -rf csv
