#!/bin/bash
# On the device, from the repository root: the ragged warp and block twins (record.md).
# `bash call.sh a` and `... b`: full rows of the twins run as the plain unit's rows (runs_plain,
# the `w5` wheel; runs_plain.diff on 093a525, measured and not kept). a: the GPU tests of rows of
# their own length, k per row and hints (Rust: gpu_ragged against the simulator and bisect;
# Python: the package's CUDA subset), then per-kernel GPU time of the block and half-row twins;
# b: per-kernel GPU time of the whole-warp twins. `bash call.sh c`: the warp rows' 16-byte
# loads up to the group a ragged row's end cuts (the `w6` wheel, the commit named in
# record.md): the GPU tests, then the whole-warp twins' kernel time on rows of their own length.
# Times: Nsight Compute, caches flushed, with the 2026-12-03 ragged-twins record's calls.py and
# table.py; the earlier build of each unit is `w3` or `w4` of the 2026-12-04 row-place record
# (the landed launch bounds: `w4` from 12 to 24 keys, `w3` else).
# Carries: devbin/pkw3.tar.xz ... pkw6.tar.xz (wheels) and devbin/gpu_ragged (`cargo test
# --release -p rtopk --test gpu_ragged --no-run`, stripped, of the wheel's code).
set -u
PART=$1
D=results/cuda/2026-12-03-ragged-twins-h200
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
mkdir -p /tmp/wh
WHEELS="w3 w4 w5"
[ $PART = c ] && WHEELS="w3 w4 w6"
for w in $WHEELS; do
    tar xJf devbin/pk$w.tar.xz -C /tmp/wh
    $PY -m pip install -q --no-deps --target /tmp/site_$w /tmp/wh/$w/*.whl
done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
mkdir -p $OUT/csv
run() {  # wheel shape mode
    local t=$SECONDS f=$2_$3-$1
    [ $3 = plain ] && f=$2_plain
    PYTHONPATH=/tmp/site_$1 RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$1 timeout 60 ncu --profile-from-start off \
        --metrics gpu__time_duration.sum --cache-control all --csv $PY $D/calls.py --shape $2 \
        --mode $3 --calls 7 > $OUT/csv/$f.csv 2> $OUT/csv/$f.err
    echo "$1 $2 $3 rc=$? $((SECONDS-t)) s" >> $OUT/steps.txt
}
shape() {  # shape earlier-wheel
    run w5 $1 plain; run w5 $1 full; run $2 $1 full; run w5 $1 lengths; run $2 $1 lengths
}
if [ $PART = c ]; then
    s=$SECONDS; timeout 200 devbin/gpu_ragged --include-ignored --test-threads 8 > $OUT/gpu_ragged.txt 2>&1
    echo "gpu_ragged rc=$? $((SECONDS-s)) s: $(grep 'test result' $OUT/gpu_ragged.txt)" >> $OUT/steps.txt
    s=$SECONDS; (cd crates/rtopk-py && PYTHONPATH=/tmp/site_w6 RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w6 timeout 100 $PY -m pytest -q -rs -p no:cacheprovider tests/test_ragged.py -k cuda > $OUT/pytest_ragged.txt 2>&1); echo "pytest rc=$? $((SECONDS-s)) s: $(tail -1 $OUT/pytest_ragged.txt)" >> $OUT/steps.txt
    run w6 16384x1024:64 plain; run w6 16384x1024:64 lengths; run w3 16384x1024:64 lengths
    run w6 16384x768:64 lengths; run w4 16384x768:64 lengths
    run w6 16384x512:32 lengths; run w4 16384x512:32 lengths
elif [ $PART = a ]; then
    s=$SECONDS; timeout 240 devbin/gpu_ragged --include-ignored --test-threads 4 > $OUT/gpu_ragged.txt 2>&1
    echo "gpu_ragged rc=$? $((SECONDS-s)) s: $(grep 'test result' $OUT/gpu_ragged.txt)" >> $OUT/steps.txt
    s=$SECONDS; (cd crates/rtopk-py && PYTHONPATH=/tmp/site_w5 RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w5 timeout 120 $PY -m pytest -q -rs -p no:cacheprovider tests/test_ragged.py tests/test_torch_cuda.py -k "cuda and (ragged or hint or length or threshold)" > $OUT/pytest_ragged.txt 2>&1); echo "pytest rc=$? $((SECONDS-s)) s: $(tail -1 $OUT/pytest_ragged.txt)" >> $OUT/steps.txt
    shape 64x32768:2048 w3
    shape 65536x256:8 w3
else
    shape 16384x1024:64 w3
    shape 16384x768:64 w4
    shape 16384x512:32 w4
    run w5 16384x2048:64 plain; run w5 16384x2048:64 full; run w3 16384x2048:64 full
fi
$PY $D/table.py $OUT/csv > $OUT/table.md 2>&1
cd $OUT && tar czf csv.tgz csv && rm -rf csv
