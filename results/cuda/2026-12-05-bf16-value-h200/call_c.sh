#!/bin/bash
# On the device, from the repository root: w0 (the committed kernels) and w2 (bf16 rows of
# every kind through the value phase, warp rows counting at the value itself; call_a.sh) on
# one more card: bench/dtypes16.py --quick and block16.py on each, alternated.
set -u
PY=/opt/torch/.venv/bin/python3
D=results/cuda/2026-12-05-bf16-value-h200
mkdir -p /tmp/wh $OUT
step() { echo "$1 rc=$2 $3 s" >> $OUT/steps.txt; }
for w in w0 w2; do
    tar xJf devbin/pk$w.tar.xz -C /tmp/wh
    $PY -m pip install -q --no-deps --target /tmp/site_$w /tmp/wh/$w/*.whl
done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
for w in w0 w2; do
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w:bench timeout 150 $PY bench/dtypes16.py --quick --out $OUT/dtypes16_$w > $OUT/dtypes16_$w.txt 2>&1
    step "dtypes16 $w" $? $((SECONDS-s))
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w timeout 120 $PY $D/block16.py --reps 30 > $OUT/block16_$w.txt 2> $OUT/block16_$w.err
    step "block16 $w" $? $((SECONDS-s))
done
cd $OUT && tar czf all.tgz device.txt block16_* dtypes16_* && rm -rf block16_* dtypes16_*
