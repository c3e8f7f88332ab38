#!/bin/bash
# On the device, from the repository root: one choice of key_slots's path for a warp row
# (record.md). Wheels: `w6` (29b7d5f's kernels, the landed build before), `w8` (the ragged
# twins' warps vote for one path, `__all_sync`; not kept), `w9` (the commit that lands it: one
# choice a warp row, row_whole, in every warp-row unit). `bash call2.sh a`: w6 and w8, the
# whole-warp ragged twins on rows of their own length and on full rows, plain units on rows
# narrower than their unit; `b`: the GPU ragged tests (gpu_ragged of w9's code; the package's
# CUDA ragged tests), then w6 and w9 on those shapes; `c`: w6 and w9 on the RTop-K grid's
# plain units at N = 2^20 and on half-warp ragged rows, f32.
# Times: Nsight Compute, caches flushed, calls.py and the 2026-12-03 ragged-twins record's table.py.
set -u
PART=$1
D=results/cuda/2026-12-04-length-read-h200
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
mkdir -p /tmp/wh $OUT/csv
for w in w6 w8 w9; do
    tar xJf devbin/pk$w.tar.xz -C /tmp/wh
    $PY -m pip install -q --no-deps --target /tmp/site_$w /tmp/wh/$w/*.whl
done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
run() {  # wheel shape mode [dtype]
    local t=$SECONDS dt=${4:-float32}
    local f=$2-${dt}_$3-$1
    [ $dt = float32 ] && f=$2_$3-$1
    PYTHONPATH=/tmp/site_$1 RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$1 timeout 60 ncu --profile-from-start off \
        --metrics gpu__time_duration.sum --cache-control all --csv $PY $D/calls.py --shape $2 \
        --mode $3 --calls 7 --dtype $dt > $OUT/csv/$f.csv 2> $OUT/csv/$f.err
    echo "$1 $2 $3 $dt rc=$? $((SECONDS-t)) s" >> $OUT/steps.txt
}
if [ $PART = a ]; then
    for s in 16384x2048:64 16384x1024:64 16384x768:64 16384x512:32; do
        for w in w6 w8; do run $w $s lengths; run $w $s full; done
    done
    for s in 16384x1000:64 16384x2000:64; do run w6 $s plain; run w8 $s plain; done
elif [ $PART = b ]; then
    s=$SECONDS; timeout 200 devbin/gpu_ragged --include-ignored --test-threads 8 > $OUT/gpu_ragged.txt 2>&1
    echo "gpu_ragged rc=$? $((SECONDS-s)) s: $(grep 'test result' $OUT/gpu_ragged.txt)" >> $OUT/steps.txt
    s=$SECONDS; (cd crates/rtopk-py && PYTHONPATH=/tmp/site_w9 RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w9 timeout 150 $PY -m pytest -q -rs -p no:cacheprovider tests/test_ragged.py -k cuda > $OUT/pytest_ragged.txt 2>&1); echo "pytest rc=$? $((SECONDS-s)) s: $(tail -1 $OUT/pytest_ragged.txt)" >> $OUT/steps.txt
    for s in 16384x1000:64 16384x2000:64 16384x500:32; do run w6 $s plain; run w9 $s plain; done
    for s in 16384x2048:64 16384x1024:64; do for w in w6 w9; do run $w $s lengths; done; done
    for s in 16384x1024:64 16384x768:64; do for w in w6 w9; do run $w $s full; done; done
    for w in w6 w9; do run $w 16384x1024:64 lengths bfloat16; done
else
    for s in 1048576x256:16 1048576x512:32 1048576x768:64; do for w in w6 w9; do run $w $s plain; done; done
    for w in w6 w9; do run $w 65536x256:8 lengths; run $w 65536x256:8 full; done
fi
$PY results/cuda/2026-12-03-ragged-twins-h200/table.py $OUT/csv > $OUT/table.md 2>&1
cd $OUT && tar czf csv.tgz csv && rm -rf csv
