#!/bin/bash
# On the device, from the repository root: the ragged rows' place beside their arguments
# (split_row_args no longer rebases the launch's pointers; the commit named in record.md).
# The GPU tests of rows of their own length, k per row and hints (Rust: gpu_ragged against the
# simulator and bisect; Python: the package's CUDA subset), then per-kernel GPU time (Nsight
# Compute, caches flushed) of full-length ragged rows against plain ones in the same call, with
# the 2026-12-03 ragged-twins record's calls.py and table.py, then the decode benchmark.
# Carries: devbin/pkw3.tar.xz (the wheel), devbin/gpu_ragged (the test binary of
# `cargo test --release -p rtopk --test gpu_ragged --no-run`, stripped).
# `bash call.sh a`: the tests and the decode benchmark; `bash call.sh b`: the kernel times;
# `bash call.sh c`: the warp rows' ragged twins under the plain launch bound (devbin/pkw3.tar.xz)
# and one block per SM fewer (devbin/pkw4.tar.xz, RowWidth::ragged_min_blocks), one call.
set -u
PART=$1
D=results/cuda/2026-12-03-ragged-twins-h200
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
mkdir -p /tmp/wh && tar xJf devbin/pkw3.tar.xz -C /tmp/wh
$PY -m pip install -q --no-deps --target /tmp/site_w3 /tmp/wh/w3/*.whl
export PYTHONPATH=/tmp/site_w3 RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w3
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
if [ $PART = a ]; then
s=$SECONDS; timeout 240 devbin/gpu_ragged --include-ignored --test-threads 4 > $OUT/gpu_ragged.txt 2>&1
echo "gpu_ragged rc=$? $((SECONDS-s)) s: $(grep 'test result' $OUT/gpu_ragged.txt)" >> $OUT/steps.txt
s=$SECONDS; (cd crates/rtopk-py && timeout 100 $PY -m pytest -q -rs -p no:cacheprovider tests/test_ragged.py tests/test_torch_cuda.py -k "cuda and (ragged or hint or length or threshold)" > $OUT/pytest_ragged.txt 2>&1); echo "pytest rc=$? $((SECONDS-s)) s: $(tail -1 $OUT/pytest_ragged.txt)" >> $OUT/steps.txt
s=$SECONDS; timeout 60 $PY bench/decode.py --steps 3 --out $OUT/decode.json > $OUT/decode.txt 2>&1; echo "decode rc=$? $((SECONDS-s)) s" >> $OUT/steps.txt
exit 0
fi
mkdir -p $OUT/csv
if [ $PART = c ]; then
    tar xJf devbin/pkw4.tar.xz -C /tmp/wh
    $PY -m pip install -q --no-deps --target /tmp/site_w4 /tmp/wh/w4/*.whl
    runc() {  # wheel shape mode
        local t=$SECONDS f=$2_$3-$1
        [ $3 = plain ] && f=$2_plain
        PYTHONPATH=/tmp/site_$1 RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$1 ncu --profile-from-start off \
            --metrics gpu__time_duration.sum --cache-control all --csv $PY $D/calls.py --shape $2 \
            --mode $3 --calls 7 > $OUT/csv/$f.csv 2> $OUT/csv/$f.err
        echo "$1 $2 $3 rc=$? $((SECONDS-t)) s" >> $OUT/steps.txt
    }
    for s in 16384x1024:64 16384x768:64 16384x512:32; do
        runc w3 $s plain; runc w3 $s full; runc w4 $s full; runc w4 $s lengths; runc w3 $s lengths
    done
    $PY $D/table.py $OUT/csv > $OUT/table.md 2>&1
    cd $OUT && tar czf csv.tgz csv && rm -rf csv
    exit 0
fi
run() {  # shape mode
    local t=$SECONDS
    ncu --profile-from-start off --metrics gpu__time_duration.sum --cache-control all --csv \
        $PY $D/calls.py --shape $1 --mode $2 --calls 7 > $OUT/csv/$1_$2.csv 2> $OUT/csv/$1_$2.err
    echo "$1 $2 rc=$? $((SECONDS-t)) s" >> $OUT/steps.txt
}
for s in 16384x1024:64 16384x2048:64 64x32768:2048 16x100352:64; do run $s plain; run $s full; done
for s in 64x128256:50 1x1048576:2048; do run $s plain; run $s full; run $s lengths; done
$PY $D/table.py $OUT/csv > $OUT/table.md 2>&1
cd $OUT && tar czf csv.tgz csv && rm -rf csv
