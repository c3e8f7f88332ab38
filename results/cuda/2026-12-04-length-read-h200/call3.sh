#!/bin/bash
# On the device, from the repository root: the threshold launch's batches cut to the row's k
# (record.md, "Call e"). `w9` (as in call2.sh) against `w10` (the commit that lands it):
# the GPU ragged tests (gpu_ragged of w10's code, which compares every threshold with the
# simulator's and bisect's; the package's CUDA ragged tests), then the kernel times of calls
# that ask for thresholds. Times: Nsight Compute, caches flushed, calls.py and the 2026-12-03
# ragged-twins record's table.py.
set -u
D=results/cuda/2026-12-04-length-read-h200
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
mkdir -p /tmp/wh $OUT/csv
for w in w9 w10; do
    tar xJf devbin/pk$w.tar.xz -C /tmp/wh
    $PY -m pip install -q --no-deps --target /tmp/site_$w /tmp/wh/$w/*.whl
done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
run() {  # wheel shape mode
    local t=$SECONDS f=$2_$3-$1
    PYTHONPATH=/tmp/site_$1 RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$1 timeout 60 ncu --profile-from-start off \
        --metrics gpu__time_duration.sum --cache-control all --csv $PY $D/calls.py --shape $2 \
        --mode $3 --calls 7 > $OUT/csv/$f.csv 2> $OUT/csv/$f.err
    echo "$1 $2 $3 rc=$? $((SECONDS-t)) s" >> $OUT/steps.txt
}
s=$SECONDS; timeout 200 devbin/gpu_ragged --include-ignored --test-threads 8 > $OUT/gpu_ragged.txt 2>&1
echo "gpu_ragged rc=$? $((SECONDS-s)) s: $(grep 'test result' $OUT/gpu_ragged.txt)" >> $OUT/steps.txt
s=$SECONDS; (cd crates/rtopk-py && PYTHONPATH=/tmp/site_w10 RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w10 timeout 150 $PY -m pytest -q -rs -p no:cacheprovider tests/test_ragged.py -k cuda > $OUT/pytest_ragged.txt 2>&1); echo "pytest rc=$? $((SECONDS-s)) s: $(tail -1 $OUT/pytest_ragged.txt)" >> $OUT/steps.txt
for s in 1048576x256:16 16384x1024:64 64x128256:50 8x131072:2048 64x32768:2048; do
    for w in w9 w10; do run $w $s plain; done
done
for w in w9 w10; do run $w 16384x1024:64 lengths; done
$PY results/cuda/2026-12-03-ragged-twins-h200/table.py $OUT/csv > $OUT/table.md 2>&1
cd $OUT && tar czf csv.tgz csv && rm -rf csv
