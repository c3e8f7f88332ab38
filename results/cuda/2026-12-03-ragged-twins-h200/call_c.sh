#!/bin/bash
# On the device, from the repository root: the ragged twins' kernel time (Nsight Compute, per
# launch) as built (base) and as the shipped-unit variants of variants.py (devbin/units/<v>:
# same, nohint, bounds), on the shapes of call.sh where the twins lost; then, with the wheel as
# built, the package's CUDA tests of rows of their own length and hints, and the decode benchmark
# (against torch.topk, every answer checked). Wheel: devbin/pkw1.tar.xz.
set -u
D=results/cuda/2026-12-03-ragged-twins-h200
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
mkdir -p /tmp/wh && tar xJf devbin/pkw1.tar.xz -C /tmp/wh
$PY -m pip install -q --no-deps --target /tmp/site_w1 /tmp/wh/w1/*.whl
export PYTHONPATH=/tmp/site_w1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
run() {  # variant shape mode
    mkdir -p $OUT/csv/$1
    ncu --profile-from-start off --metrics gpu__time_duration.sum --cache-control all --csv \
        $PY $D/calls.py --shape $2 --mode $3 --calls 7 > $OUT/csv/$1/$2_$3.csv 2> $OUT/csv/$1/$2_$3.err
    echo "$1 $2 $3 rc=$?" >> $OUT/steps.txt
}
same() {  # the check that a shipped unit of the unchanged source times as the compiled one
    run same 16x100352:64 full; run same 64x128256:50 hinted; run same 8x131072:2048 full
}
ragged() {  # variant
    for s in 64x128256:50 128x100352:64 16x100352:64 8x131072:2048; do run $1 $s hinted; done
    for s in 64x128256:50 16x100352:64 8x131072:2048 64x32768:2048; do run $1 $s full; done
    run $1 8x131072:2048 quarter
}
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_base
for s in 64x128256:50 128x100352:64 16x100352:64 8x131072:2048 64x32768:2048; do run base $s plain; done
ragged base
for v in same nohint bounds; do
    export RTOPK_CUDA_UNITS=$PWD/devbin/units/$v RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$v
    if [ $v = same ]; then same; else ragged $v; fi
    # a unit loaded from the shipped directory is never compiled into the cache
    echo "$v: cached units $(ls -R /tmp/ptx_$v | grep -c ragged) named ragged: $(ls -R /tmp/ptx_$v | grep ragged | tr '\n' ' ')" >> $OUT/steps.txt
    cp $OUT/csv/base/*_plain.csv $OUT/csv/$v/
done
unset RTOPK_CUDA_UNITS; export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_base
for v in base same nohint bounds; do echo "## $v"; $PY $D/table.py $OUT/csv/$v; echo; done > $OUT/table.md 2>&1
s=$SECONDS; (cd crates/rtopk-py && timeout 100 $PY -m pytest -q -rs -p no:cacheprovider tests/test_ragged.py tests/test_torch_cuda.py -k "cuda and (ragged or hint or length or threshold)" > $OUT/pytest_ragged.txt 2>&1); echo "pytest rc=$? $((SECONDS-s)) s: $(tail -1 $OUT/pytest_ragged.txt)" >> $OUT/steps.txt
RTOPK_CUDA_PTX_CACHE=/tmp/ptx_base timeout 90 $PY bench/decode.py --steps 3 --out $OUT/decode.json > $OUT/decode.txt 2>&1; echo "decode rc=$?" >> $OUT/steps.txt
cd $OUT && tar czf csv.tgz csv && rm -rf csv
