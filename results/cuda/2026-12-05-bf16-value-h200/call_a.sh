#!/bin/bash
# On the device, from the repository root: bf16 warp rows' value phase counting at the value
# itself (count_at_value) against the committed kernels, and bf16 rows of a block or wider
# through the value phase too (no keys_only). Wheels built on the CPU VM and carried as
# devbin/pkwN.tar.xz: w0 (d83e6c6, the committed kernels), w1 (warp rows' change), w2 (w1 and
# no keys_only). share.py (../2026-12-04-adjacent-keys-h200) on w0 and w1 alternated twice,
# block16.py on w1 and w2 alternated twice, then bench/dtypes16.py --quick on w0 and w1.
set -u
PY=/opt/torch/.venv/bin/python3
D=results/cuda/2026-12-05-bf16-value-h200
SHARE=results/cuda/2026-12-04-adjacent-keys-h200/share.py
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/wh /tmp/bins $OUT
step() { echo "$1 rc=$2 $3 s" >> $OUT/steps.txt; }
for w in w0 w1 w2; do
    tar xJf devbin/pk$w.tar.xz -C /tmp/wh
    $PY -m pip install -q --no-deps --target /tmp/site_$w /tmp/wh/$w/*.whl
done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
for r in 1 2; do for w in w0 w1; do
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w timeout 200 $PY $SHARE --reps 15 > $OUT/share_${w}_$r.txt 2> $OUT/share_${w}_$r.err
    step "share $w $r" $? $((SECONDS-s))
done; done
for r in 1 2; do for w in w1 w2; do
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w timeout 120 $PY $D/block16.py --reps 30 > $OUT/block16_${w}_$r.txt 2> $OUT/block16_${w}_$r.err
    step "block16 $w $r" $? $((SECONDS-s))
done; done
for w in w0 w1; do
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w:bench timeout 150 $PY bench/dtypes16.py --quick --out $OUT/dtypes16_$w > $OUT/dtypes16_$w.txt 2>&1
    step "dtypes16 $w" $? $((SECONDS-s))
done
cd $OUT && tar czf all.tgz device.txt share_* block16_* dtypes16_* && rm -rf share_* block16_* dtypes16_*
