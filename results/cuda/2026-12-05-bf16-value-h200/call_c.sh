#!/bin/bash
# On the device, from the repository root: w0 (the committed kernels) and w2 (bf16 rows of
# every kind through the value phase, warp rows counting at the value itself; call_a.sh) on
# one more card: bench/dtypes16.py --quick and block16.py on each, alternated; then Nsight
# Compute's per-launch times of one call on w2 (../2026-12-04-sixteen-bit-profile-h200/prof.py)
# at three indexer shapes in f32 and bf16 (where bf16 rows of a cluster took longer than f32's).
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
PROF=results/cuda/2026-12-04-sixteen-bit-profile-h200/prof.py
for shape in "1 100000 2048" "1 262144 2048" "8 131072 2048"; do for dt in float32 bfloat16; do
    set -- $shape
    RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w2 PYTHONPATH=/tmp/site_w2 timeout 60 ncu --profile-from-start off --cache-control all \
        --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__registers_per_thread,launch__grid_size,launch__block_size \
        --csv $PY $PROF $dt $1 $2 $3 > $OUT/ncu_${dt}_$1_$2_$3.csv 2>&1
    step "ncu $dt $shape" $? 0
done; done
cd $OUT && tar czf all.tgz device.txt block16_* dtypes16_* ncu_* && rm -rf block16_* dtypes16_* ncu_*
