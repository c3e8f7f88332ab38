#!/bin/bash
# On the device, from the repository root: the rank sort (record.md). w14 (the block sort on
# few rows, a735daa's kernels) against w15 (the rank sort). Part a: correctness — `rtopk verify
# cuda --quick` (the rtopk binary of w15's tree, devbin/rtopk), the GPU ragged tests
# (devbin/gpu_ragged: sorted rows against the simulator and bisect), the package's sorted CUDA
# tests — then Nsight Compute kernel times of p.py's sorted calls on both wheels. Part b:
# bench/sort_step.py --grid few-rows on both (CUDA events, rotated inputs). Run as `call.sh a; call.sh b`.
# Part c (w16, the commit that lands it: k <= 2048 and 8192 results at most): the GPU ragged
# tests, Nsight Compute on p.py --cases c, and sort_step.py, against w14.
set -u
D=results/cuda/2026-12-04-rank-sort-h200
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
mkdir -p /tmp/wh $OUT/csv $OUT/json
WHEELS="w14 w15"
[ "$1" = c ] && WHEELS="w14 w16"
for w in $WHEELS; do
    tar xJf devbin/pk$w.tar.xz -C /tmp/wh
    $PY -m pip install -q --no-deps --target /tmp/site_$w /tmp/wh/$w/*.whl
done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
step() { echo "$1 rc=$2 $3 s" >> $OUT/steps.txt; }
if [ "$1" = c ]; then
    s=$SECONDS; timeout 200 devbin/gpu_ragged --include-ignored --test-threads 8 > $OUT/gpu_ragged.txt 2>&1
    step "gpu_ragged $(grep 'test result' $OUT/gpu_ragged.txt)" $? $((SECONDS-s))
    for w in w14 w16; do
        s=$SECONDS; PYTHONPATH=/tmp/site_$w RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w timeout 120 ncu --profile-from-start off \
            --metrics gpu__time_duration.sum --cache-control all --csv $PY $D/p.py --cases c > $OUT/csv/p_$w.csv 2> $OUT/csv/p_$w.err
        step "ncu $w" $? $((SECONDS-s))
        s=$SECONDS; PYTHONPATH=/tmp/site_$w:bench RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w timeout 90 $PY bench/sort_step.py \
            --grid few-rows --reps 15 --out $OUT/json/sort_$w.json > $OUT/json/sort_$w.txt 2>&1
        step "sort_step $w" $? $((SECONDS-s))
    done
fi
if [ "$1" = a ]; then
    s=$SECONDS; timeout 150 devbin/rtopk verify cuda --quick --dtype float32 > $OUT/verify_f32.txt 2>&1
    step verify_f32 $? $((SECONDS-s))
    s=$SECONDS; timeout 200 devbin/gpu_ragged --include-ignored --test-threads 8 > $OUT/gpu_ragged.txt 2>&1
    step "gpu_ragged $(grep 'test result' $OUT/gpu_ragged.txt)" $? $((SECONDS-s))
    s=$SECONDS; (cd crates/rtopk-py && PYTHONPATH=/tmp/site_w15 RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w15 timeout 120 $PY -m pytest -q -rs -p no:cacheprovider tests -k "sort and cuda" > $OUT/pytest_sorted.txt 2>&1)
    step "pytest $(tail -1 $OUT/pytest_sorted.txt)" $? $((SECONDS-s))
fi
[ "$1" = a ] && for w in w14 w15; do
    s=$SECONDS; PYTHONPATH=/tmp/site_$w RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w timeout 120 ncu --profile-from-start off \
        --metrics gpu__time_duration.sum --cache-control all --csv $PY $D/p.py > $OUT/csv/p_$w.csv 2> $OUT/csv/p_$w.err
    step "ncu $w" $? $((SECONDS-s))
done
[ "$1" = b ] && for r in 1; do for w in w14 w15; do
    s=$SECONDS; PYTHONPATH=/tmp/site_$w:bench RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w timeout 90 $PY bench/sort_step.py \
        --grid few-rows --reps 15 --out $OUT/json/sort_${w}_$r.json > $OUT/json/sort_${w}_$r.txt 2>&1
    step "sort_step $w $r" $? $((SECONDS-s))
done; done
tar czf $OUT/logs_$1.tgz -C $OUT csv json && rm -rf $OUT/csv $OUT/json
