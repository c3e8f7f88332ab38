#!/bin/bash
# On the device, from the repository root ($OUT the call's output folder): the tree that lands
# (h3: call_a's h2 less its f32 ranks, the 16-bit warp sorts as h2's) checked and timed again.
# devbin/bins.tar.xz holds h3's rtopk and gpu_ragged: `rtopk verify cuda --quick` in float16
# and bfloat16, gpu_ragged (rows of their own k, sorted among them); bench/sort_step.py on h3
# then h0 (16-bit types; the reverse of call_a's order); then, as far as the call's time
# allows, bench/dtypes16.py --quick on h3 (issue 35's figures on this card).
set -u
PY=/opt/torch/.venv/bin/python3
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/wh /tmp/bins $OUT
step() { echo "$1 rc=$2 $3 s" >> $OUT/steps.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
tar xJf devbin/bins.tar.xz -C /tmp/bins
for w in h0 h3; do
    tar xJf devbin/pk$w.tar.xz -C /tmp/wh
    $PY -m pip install -q --no-deps --target /tmp/site_$w /tmp/wh/$w/*.whl
done
s=$SECONDS; timeout 140 /tmp/bins/rtopk verify cuda --quick --dtype float16 > $OUT/verify_f16.txt 2>&1
step verify_f16 $? $((SECONDS-s))
s=$SECONDS; timeout 140 /tmp/bins/rtopk verify cuda --quick --dtype bfloat16 > $OUT/verify_bf16.txt 2>&1
step verify_bf16 $? $((SECONDS-s))
s=$SECONDS; timeout 100 /tmp/bins/gpu_ragged --include-ignored --test-threads 8 > $OUT/gpu_ragged.txt 2>&1
step "gpu_ragged $(grep 'test result' $OUT/gpu_ragged.txt)" $? $((SECONDS-s))
for w in h3 h0; do
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w:bench timeout 80 $PY bench/sort_step.py \
        --grid rtopk-two,sampler --dtype float16,bfloat16 --reps 15 --out $OUT/sort_${w}_2.json > $OUT/sort_${w}_2.txt 2>&1
    step "sort_step $w 2" $? $((SECONDS-s))
done
left=$((575 - SECONDS))
if [ $left -gt 30 ]; then
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_h3 PYTHONPATH=/tmp/site_h3:bench timeout $left $PY bench/dtypes16.py --quick --out $OUT/dtypes16 > $OUT/dtypes16.txt 2>&1
    step dtypes16 $? $((SECONDS-s))
fi
cd $OUT && tar czf all.tgz device.txt verify_* gpu_ragged.txt sort_* dtypes16* && rm -rf verify_* gpu_ragged.txt sort_* dtypes16*
