#!/bin/bash
# On the device, from the repository root ($OUT the call's output folder): the 32-bit ranks of
# the warp sorts of 16-bit and f32 rows (h2) against the committed kernels (h0, b78626c's wheel).
# 1. h2's tree checked: devbin/bins.tar.xz holds its rtopk, rtopk-cuda's gpu and rtopk's
#    gpu_ragged test binaries: `rtopk verify cuda --quick` in float16, bfloat16 and float32
#    (values, indices and iteration counts against bisect and warp-sim, a third of the cases
#    sorted), the 16-bit every-strategy GPU test.
# 2. bench/sort_step.py on h0 then h2 (grids rtopk-two and sampler, f16, bf16, f32).
set -u
PY=/opt/torch/.venv/bin/python3
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/wh /tmp/bins $OUT
step() { echo "$1 rc=$2 $3 s" >> $OUT/steps.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
tar xJf devbin/bins.tar.xz -C /tmp/bins
for w in h0 h2; do
    tar xJf devbin/pk$w.tar.xz -C /tmp/wh
    $PY -m pip install -q --no-deps --target /tmp/site_$w /tmp/wh/$w/*.whl
done
s=$SECONDS; timeout 150 /tmp/bins/rtopk verify cuda --quick --dtype float16 > $OUT/verify_f16.txt 2>&1
step verify_f16 $? $((SECONDS-s))
s=$SECONDS; timeout 150 /tmp/bins/rtopk verify cuda --quick --dtype bfloat16 > $OUT/verify_bf16.txt 2>&1
step verify_bf16 $? $((SECONDS-s))
s=$SECONDS; timeout 150 /tmp/bins/rtopk verify cuda --quick --dtype float32 > $OUT/verify_f32.txt 2>&1
step verify_f32 $? $((SECONDS-s))
s=$SECONDS; timeout 100 /tmp/bins/gpu --include-ignored --test-threads 4 sixteen_bit_rows_match > $OUT/gpu.txt 2>&1
step "gpu $(grep 'test result' $OUT/gpu.txt)" $? $((SECONDS-s))
for r in ${ROUNDS:-1}; do for w in h0 h2; do
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w:bench timeout 150 $PY bench/sort_step.py \
        --grid rtopk-two,sampler --dtype float16,bfloat16,float32 --reps 15 --out $OUT/sort_${w}_$r.json > $OUT/sort_${w}_$r.txt 2>&1
    step "sort_step $w $r" $? $((SECONDS-s))
done; done
cd $OUT && tar czf all.tgz device.txt verify_* gpu.txt sort_* && rm -f verify_* gpu.txt sort_*
