#!/bin/bash
# On the device, from the repository root ($OUT the call's output folder), `bash call_c.sh B`:
# build B (p8 in call c; p9, the tree that lands, in call d: slot groups, and four lanes a row
# for 16-bit rows up to 64 and f32 rows up to 16, eight past them) against p4
# (2026-12-05-pick-gap-h100's landed build). devbin/binsN.tar.xz: pN's rtopk and gpu_ragged.
set -u
B=${1:-p8}
PY=/opt/torch/.venv/bin/python3
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/wh /tmp/binsB $OUT
step() { echo "$1 rc=$2 $3 s" >> $OUT/steps.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
for w in p4 $B; do
    tar xJf devbin/pk$w.tar.xz -C /tmp/wh
    $PY -m pip install -q --no-deps --target /tmp/site_$w /tmp/wh/$w/*.whl
done
tar xJf devbin/bins${B#p}.tar.xz -C /tmp/binsB
R=results/cuda/2026-12-05-pick-groups-h100
s=$SECONDS; timeout 200 /tmp/binsB/gpu_ragged --include-ignored --test-threads 8 pick > $OUT/gpu_ragged_pick.txt 2>&1
step "gpu_ragged pick $(grep 'test result' $OUT/gpu_ragged_pick.txt | tr '\n' ' ')" $? $((SECONDS-s))
s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$B PYTHONPATH=/tmp/site_$B:crates/rtopk-py/tests timeout 300 $PY -m pytest -q crates/rtopk-py/tests/test_torch_cuda.py -k "pick_rows_at_every" -p no:cacheprovider > $OUT/pytest_cuda.txt 2>&1
step "pytest $(tail -1 $OUT/pytest_cuda.txt)" $? $((SECONDS-s))
$PY -c "
import numpy as np
g = np.random.default_rng(5)
for m in (8, 13, 61, 64, 200):
    np.save(f'/tmp/h{m}.npy', g.standard_normal((300, m)).astype(np.float16))
    np.save(f'/tmp/f{m}.npy', g.standard_normal((300, m)).astype(np.float32))"
for x in h8 h13 h61 h64 h200 f8 f13; do
    for a in "-k 3" "-k 6 --sorted" "-k 8" "-k 5 --smallest"; do
        s=$SECONDS; timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/binsB/rtopk select --algo cuda --input /tmp/$x.npy $a --values /tmp/v.npy >> $OUT/memcheck.txt 2>&1
        step "memcheck $x $a" $? $((SECONDS-s))
    done
done
s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$B PYTHONPATH=/tmp/site_$B timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 $PY $R/offsets_drive.py >> $OUT/memcheck.txt 2>&1
step "memcheck offsets_drive.py $(tail -1 $OUT/memcheck.txt)" $? $((SECONDS-s))
for w in $B p4; do
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w:bench timeout 90 $PY bench/router_rows.py --out $OUT/router_$w --reps 30 > $OUT/router_$w.txt 2>&1
    step "router $w" $? $((SECONDS-s))
done
for w in $B p4 $B p4; do
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w:bench timeout 90 $PY bench/router_rows.py --grid --out $OUT/grid_${w}_$s --reps 15 > $OUT/grid_${w}_$s.txt 2>&1
    step "grid $w $s" $? $((SECONDS-s))
done
for w in $B p4; do
    for c in "262144 64 6 bfloat16" "32768 512 8 float16" "1048576 8 4 float16"; do
        s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w timeout 120 ncu --kernel-name regex:rtopk_pick --launch-skip 1 --launch-count 1 --cache-control all --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed $PY results/cuda/2026-12-05-pick-gap-h100/ncu_drive.py $c > $OUT/ncu_${w}_${c// /_}.txt 2>&1
        step "ncu $w $c" $? $((SECONDS-s))
    done
done
cd $OUT && tar czf all.tgz device.txt gpu_ragged_pick.txt pytest_cuda.txt memcheck.txt router_* grid_* ncu_* && rm -rf router_* grid_* ncu_*
