#!/bin/bash
# On the device, from the repository root ($OUT the call's output folder): p6 (slot groups,
# eight lanes a row as before) and p7 (p6 with four lanes a row for the units up to 256)
# against p4 (2026-12-05-pick-gap-h100's landed build). devbin/binsN.tar.xz: pN's rtopk and
# gpu_ragged.
set -u
PY=/opt/torch/.venv/bin/python3
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/wh $OUT
step() { echo "$1 rc=$2 $3 s" >> $OUT/steps.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
for w in p4 p6 p7; do
    tar xJf devbin/pk$w.tar.xz -C /tmp/wh
    $PY -m pip install -q --no-deps --target /tmp/site_$w /tmp/wh/$w/*.whl
done
R=results/cuda/2026-12-05-pick-groups-h100
$PY -c "import numpy as np; [np.save(f'/tmp/x{m}.npy', np.random.default_rng(m).standard_normal((300, m)).astype(np.float16)) for m in (8, 61, 64, 200)]"
for b in 6 7; do
    mkdir -p /tmp/bins$b && tar xJf devbin/bins$b.tar.xz -C /tmp/bins$b
    s=$SECONDS; timeout 150 /tmp/bins$b/gpu_ragged --include-ignored --test-threads 8 pick > $OUT/gpu_ragged_pick_p$b.txt 2>&1
    step "gpu_ragged pick p$b $(grep 'test result' $OUT/gpu_ragged_pick_p$b.txt | tr '\n' ' ')" $? $((SECONDS-s))
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_p$b PYTHONPATH=/tmp/site_p$b:crates/rtopk-py/tests timeout 200 $PY -m pytest -q -x crates/rtopk-py/tests/test_torch_cuda.py -k "pick_rows_at_every" -p no:cacheprovider > $OUT/pytest_pick_p$b.txt 2>&1
    step "pytest pick alignment p$b $(tail -1 $OUT/pytest_pick_p$b.txt)" $? $((SECONDS-s))
    for m in 8 61 64 200; do
        for a in "-k 2" "-k 6 --sorted" "-k 8" "-k 1 --smallest"; do
            s=$SECONDS; timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/bins$b/rtopk select --algo cuda --input /tmp/x$m.npy $a --values /tmp/v.npy >> $OUT/memcheck.txt 2>&1
            step "memcheck p$b f16 300x$m $a" $? $((SECONDS-s))
        done
    done
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_p$b PYTHONPATH=/tmp/site_p$b timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 $PY $R/offsets_drive.py >> $OUT/memcheck.txt 2>&1
    step "memcheck p$b offsets_drive.py $(tail -1 $OUT/memcheck.txt)" $? $((SECONDS-s))
done
for w in p6 p7 p4; do
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w:bench timeout 90 $PY bench/router_rows.py --out $OUT/router_$w --reps 30 > $OUT/router_$w.txt 2>&1
    step "router $w" $? $((SECONDS-s))
done
for w in p6 p7 p4 p6 p7 p4; do
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w:bench timeout 90 $PY bench/router_rows.py --grid --out $OUT/grid_${w}_$s --reps 15 > $OUT/grid_${w}_$s.txt 2>&1
    step "grid $w $s" $? $((SECONDS-s))
done
for w in p6 p7 p4; do
    for c in "262144 64 6 bfloat16" "32768 512 8 float16" "65536 128 2 float16"; do
        s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w timeout 120 ncu --kernel-name regex:rtopk_pick --launch-skip 1 --launch-count 1 --cache-control all --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed $PY results/cuda/2026-12-05-pick-gap-h100/ncu_drive.py $c > $OUT/ncu_${w}_${c// /_}.txt 2>&1
        step "ncu $w $c" $? $((SECONDS-s))
    done
done
cd $OUT && tar czf all.tgz device.txt gpu_ragged_pick_*.txt pytest_pick_*.txt memcheck.txt router_* grid_* ncu_* && rm -rf router_* grid_* ncu_*
