#!/bin/bash
# On the device, from the repository root: the ragged twins' `_hinted` entry points (the commit
# named in record.md). First the GPU tests of rows of their own length, k per row and hints
# (Rust: gpu_ragged against the simulator and bisect; Python: the package's CUDA subset), then
# per-kernel GPU time (Nsight Compute, caches flushed) of full-length ragged rows against plain
# ones and of hinted calls, with the earlier record's calls.py and table.py, then the decode
# benchmark against torch.topk. Carries: devbin/pkw2.tar.xz (the wheel), devbin/gpu_ragged (the
# test binary of `cargo test --release -p rtopk --test gpu_ragged --no-run`).
# `bash call.sh a`: the tests and the decode benchmark; `bash call.sh b`: the tests part a left
# unrun, then the kernel times.
set -u
PART=$1
D=results/cuda/2026-12-03-ragged-twins-h200
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
mkdir -p /tmp/wh && tar xJf devbin/pkw2.tar.xz -C /tmp/wh
$PY -m pip install -q --no-deps --target /tmp/site_w2 /tmp/wh/w2/*.whl
export PYTHONPATH=/tmp/site_w2 RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w2
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
git rev-parse HEAD > $OUT/commit.txt 2>/dev/null
if [ $PART = a ]; then
s=$SECONDS; timeout 300 devbin/gpu_ragged --include-ignored --test-threads 1 > $OUT/gpu_ragged.txt 2>&1
echo "gpu_ragged rc=$? $((SECONDS-s)) s: $(grep 'test result' $OUT/gpu_ragged.txt)" >> $OUT/steps.txt
s=$SECONDS; (cd crates/rtopk-py && timeout 120 $PY -m pytest -q -rs -p no:cacheprovider tests/test_ragged.py tests/test_torch_cuda.py -k "cuda and (ragged or hint or length or threshold)" > $OUT/pytest_ragged.txt 2>&1); echo "pytest rc=$? $((SECONDS-s)) s: $(tail -1 $OUT/pytest_ragged.txt)" >> $OUT/steps.txt
s=$SECONDS; timeout 150 $PY bench/decode.py --steps 3 --out $OUT/decode.json > $OUT/decode.txt 2>&1; echo "decode rc=$? $((SECONDS-s)) s" >> $OUT/steps.txt
exit 0
fi
# the three GPU tests part a's five minutes left unrun, side by side
s=$SECONDS; timeout 200 devbin/gpu_ragged --include-ignored --test-threads 3 wide::ragged_ wide_cluster_rows > $OUT/gpu_ragged_rest.txt 2>&1
echo "gpu_ragged (rest) rc=$? $((SECONDS-s)) s: $(grep 'test result' $OUT/gpu_ragged_rest.txt)" >> $OUT/steps.txt
mkdir -p $OUT/csv
run() {  # shape mode
    ncu --profile-from-start off --metrics gpu__time_duration.sum --cache-control all --csv \
        $PY $D/calls.py --shape $1 --mode $2 --calls 7 > $OUT/csv/$1_$2.csv 2> $OUT/csv/$1_$2.err
    echo "$1 $2 rc=$?" >> $OUT/steps.txt
}
for s in 16x100352:64 8x131072:2048 64x32768:2048 64x32768:512 64x128256:50; do
    run $s plain; run $s full; run $s quarter
done
for s in 64x128256:50 128x100352:64 16x100352:64 8x131072:2048; do run $s hinted; done
run 128x100352:64 plain
for s in 16384x1024:64 16384x2048:64; do run $s plain; run $s full; done  # warp rows' twins
$PY $D/table.py $OUT/csv > $OUT/table.md 2>&1
cd $OUT && tar czf csv.tgz csv && rm -rf csv
