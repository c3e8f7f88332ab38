#!/bin/bash
# On the device, from the repository root ($OUT the call's output folder): 16-bit pick rows
# whose rounds take the greatest slot below the last pick (p1) against HEAD's, which take the
# pick out of its lane's slots (p0). devbin/bins.tar.xz holds p1's rtopk and gpu_ragged.
# gpu_ragged's pick tests (the GPU against the simulator, the bisection and the oracle) and a
# memcheck of 16-bit pick launches on p1; bench/router_rows.py (router shapes, then the
# 32 MB grid) on p1 and p0 alternated; Nsight Compute's instruction counts on one router cell.
set -u
PY=/opt/torch/.venv/bin/python3
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/wh /tmp/bins $OUT
step() { echo "$1 rc=$2 $3 s" >> $OUT/steps.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
tar xJf devbin/bins.tar.xz -C /tmp/bins
for w in p0 p1; do
    tar xJf devbin/pk$w.tar.xz -C /tmp/wh
    $PY -m pip install -q --no-deps --target /tmp/site_$w /tmp/wh/$w/*.whl
done
R=results/cuda/2026-12-05-pick-gap-h100
s=$SECONDS; timeout 120 /tmp/bins/gpu_ragged --include-ignored --test-threads 8 pick > $OUT/gpu_ragged_pick.txt 2>&1
step "gpu_ragged pick $(grep 'test result' $OUT/gpu_ragged_pick.txt)" $? $((SECONDS-s))
$PY -c "import numpy as np; np.save('/tmp/x.npy', np.random.default_rng(1).standard_normal((300, 61)).astype(np.float16))"
for a in "-k 6" "-k 8 --sorted" "-k 1 --smallest"; do
    s=$SECONDS; timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/bins/rtopk select --algo cuda --input /tmp/x.npy $a --values /tmp/v.npy >> $OUT/memcheck.txt 2>&1
    step "memcheck f16 $a" $? $((SECONDS-s))
done
s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_p1 PYTHONPATH=/tmp/site_p1 timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $PY $R/ncu_drive.py 1003 200 7 bfloat16 >> $OUT/memcheck.txt 2>&1
step "memcheck bf16 python" $? $((SECONDS-s))
for w in p1 p0; do
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w:bench timeout 90 $PY bench/router_rows.py --out $OUT/router_$w --reps 30 > $OUT/router_$w.txt 2>&1
    step "router $w" $? $((SECONDS-s))
done
for w in p1 p0 p1 p0; do
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w:bench timeout 90 $PY bench/router_rows.py --grid --out $OUT/grid_${w}_$s --reps 15 > $OUT/grid_${w}_$s.txt 2>&1
    step "grid $w $s" $? $((SECONDS-s))
done
for w in p1 p0; do
    for cell in "262144 64 6 bfloat16" "32768 512 8 float16"; do
        s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w timeout 60 ncu --kernel-name regex:rtopk_pick_rows --launch-skip 1 --launch-count 1 \
            --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_fma.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed \
            --cache-control all $PY $R/ncu_drive.py $cell > "$OUT/ncu_${w}_${cell// /_}.txt" 2>&1
        step "ncu $w $cell" $? $((SECONDS-s))
    done
done
cd $OUT && tar czf all.tgz device.txt gpu_ragged_pick.txt memcheck.txt router_* grid_* ncu_* && rm -rf router_* grid_* ncu_*
