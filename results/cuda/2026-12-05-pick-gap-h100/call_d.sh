#!/bin/bash
# On the device, from the repository root ($OUT the call's output folder): the tree that lands
# (p4: call c's p3 with the eight-lane rounds a loop again, as in p1) against p1
# (call a's). devbin/bins.tar.xz holds p4's rtopk and gpu_ragged. gpu_ragged's pick tests and
# memcheck of one-lane launches on p4; bench/router_rows.py (router shapes, then the 32 MB
# grid) on p4 and p1 alternated.
set -u
PY=/opt/torch/.venv/bin/python3
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/wh /tmp/bins $OUT
step() { echo "$1 rc=$2 $3 s" >> $OUT/steps.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
tar xJf devbin/bins.tar.xz -C /tmp/bins
for w in p1 p4; do
    tar xJf devbin/pk$w.tar.xz -C /tmp/wh
    $PY -m pip install -q --no-deps --target /tmp/site_$w /tmp/wh/$w/*.whl
done
R=results/cuda/2026-12-05-pick-gap-h100
s=$SECONDS; timeout 150 /tmp/bins/gpu_ragged --include-ignored --test-threads 8 pick > $OUT/gpu_ragged_pick.txt 2>&1
step "gpu_ragged pick $(grep 'test result' $OUT/gpu_ragged_pick.txt)" $? $((SECONDS-s))
$PY -c "import numpy as np; np.save('/tmp/x.npy', np.random.default_rng(1).standard_normal((300, 13)).astype(np.float16))"
for a in "-k 2" "-k 2 --sorted" "-k 1 --smallest"; do
    s=$SECONDS; timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/bins/rtopk select --algo cuda --input /tmp/x.npy $a --values /tmp/v.npy >> $OUT/memcheck.txt 2>&1
    step "memcheck f16 300x13 $a" $? $((SECONDS-s))
done
s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_p4 PYTHONPATH=/tmp/site_p4 timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $PY $R/ncu_drive.py 1003 8 2 bfloat16 >> $OUT/memcheck.txt 2>&1
step "memcheck bf16 1003x8 k=2 python" $? $((SECONDS-s))
for w in p4 p1; do
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w:bench timeout 90 $PY bench/router_rows.py --out $OUT/router_$w --reps 30 > $OUT/router_$w.txt 2>&1
    step "router $w" $? $((SECONDS-s))
done
for w in p4 p1 p4 p1; do
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w:bench timeout 90 $PY bench/router_rows.py --grid --out $OUT/grid_${w}_$s --reps 15 > $OUT/grid_${w}_$s.txt 2>&1
    step "grid $w $s" $? $((SECONDS-s))
done
cd $OUT && tar czf all.tgz device.txt gpu_ragged_pick.txt memcheck.txt router_* grid_* && rm -rf router_* grid_*
