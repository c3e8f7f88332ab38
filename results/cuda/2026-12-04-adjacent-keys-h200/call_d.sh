#!/bin/bash
# On the device, from the repository root: the commit's kernels (w22: the f16 uncounted mark
# kept in the search's slack, no field of its own), its rtopk binary and GPU tests (devbin/),
# against w16 (the kernels before): the GPU tests and `rtopk
# verify cuda --quick --dtype float16`, then share.py on w16 and w22 alternated twice.
set -u
D=results/cuda/2026-12-04-adjacent-keys-h200
PY=/opt/torch/.venv/bin/python3
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/wh $OUT
step() { echo "$1 rc=$2 $3 s" >> $OUT/steps.txt; }
for w in w16 w22; do
    tar xJf devbin/pk$w.tar.xz -C /tmp/wh
    $PY -m pip install -q --no-deps --target /tmp/site_$w /tmp/wh/$w/*.whl
done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
s=$SECONDS; timeout 120 devbin/gpu --include-ignored --test-threads 4 sixteen_bit_rows_match integer_rows_match > $OUT/gpu.txt 2>&1
step "gpu $(grep 'test result' $OUT/gpu.txt)" $? $((SECONDS-s))
s=$SECONDS; timeout 150 devbin/gpu_ragged --include-ignored --test-threads 8 > $OUT/gpu_ragged.txt 2>&1
step "gpu_ragged $(grep 'test result' $OUT/gpu_ragged.txt)" $? $((SECONDS-s))
s=$SECONDS; timeout 160 devbin/rtopk verify cuda --quick --dtype float16 > $OUT/verify_f16.txt 2>&1
step verify_f16 $? $((SECONDS-s))
for r in 1 2; do for w in w16 w22; do
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w timeout 100 $PY $D/share.py --reps 15 > $OUT/share_${w}_$r.txt 2> $OUT/share_${w}_$r.err
    step "share $w $r" $? $((SECONDS-s))
done; done
cd $OUT && tar czf all.tgz device.txt gpu.txt gpu_ragged.txt verify_f16.txt share_* \
    && rm -rf gpu.txt gpu_ragged.txt verify_f16.txt share_*
