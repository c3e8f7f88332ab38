#!/bin/bash
# On the device, from the repository root ($OUT the call's output folder): p5 (slot groups:
# one load a group, two 16-bit keys a word) against p4 (2026-12-05-pick-gap-h100's landed
# build). devbin/bins5.tar.xz: p5's rtopk and gpu_ragged; devbin/src.tar.xz: both builds' pick
# unit sources (rtopk bench cuda --emit-sources), compiled here for their SASS.
set -u
PY=/opt/torch/.venv/bin/python3
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/wh /tmp/bins $OUT /tmp/src
step() { echo "$1 rc=$2 $3 s" >> $OUT/steps.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
tar xJf devbin/bins5.tar.xz -C /tmp/bins
tar xJf devbin/src.tar.xz -C /tmp/src
for w in p4 p5; do
    tar xJf devbin/pk$w.tar.xz -C /tmp/wh
    $PY -m pip install -q --no-deps --target /tmp/site_$w /tmp/wh/$w/*.whl
done
R=results/cuda/2026-12-05-pick-groups-h100
# SASS of the pick units of both builds (in the background, 16 at once): instructions a unit
sass() {
    f=$1; b=$(basename $(dirname $f)); u=$(basename $f .cu)
    nvcc -cubin -arch=sm_90 -std=c++17 -o ${f%.cu}.cubin $f > ${f%.cu}.log 2>&1 || echo "$b $u nvcc failed"
    echo "$b $u $(cuobjdump -sass ${f%.cu}.cubin 2>/dev/null | grep -cE '^\s+/\*[0-9a-f]{4}\*/')"
}
export -f sass
(ls /tmp/src/old/*.cu /tmp/src/new/*.cu | xargs -P 16 -I{} bash -c 'sass {}' > $OUT/sass.txt 2>&1) &
SASS_PID=$!
s=$SECONDS; timeout 150 /tmp/bins/gpu_ragged --include-ignored --test-threads 8 pick > $OUT/gpu_ragged_pick.txt 2>&1
step "gpu_ragged pick $(grep 'test result' $OUT/gpu_ragged_pick.txt | tr '\n' ' ')" $? $((SECONDS-s))
s=$SECONDS; PYTHONPATH=/tmp/site_p5:crates/rtopk-py/tests timeout 200 $PY -m pytest -q -x crates/rtopk-py/tests/test_torch_cuda.py -k "pick_rows_at_every" -p no:cacheprovider > $OUT/pytest_pick.txt 2>&1
step "pytest pick alignment $(tail -1 $OUT/pytest_pick.txt)" $? $((SECONDS-s))
$PY -c "import numpy as np; [np.save(f'/tmp/x{m}.npy', np.random.default_rng(m).standard_normal((300, m)).astype(np.float16)) for m in (8, 61, 64, 512)]"
for m in 8 61 64 512; do
    for a in "-k 2" "-k 6 --sorted" "-k 1 --smallest"; do
        s=$SECONDS; timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/bins/rtopk select --algo cuda --input /tmp/x$m.npy $a --values /tmp/v.npy >> $OUT/memcheck.txt 2>&1
        step "memcheck f16 300x$m $a" $? $((SECONDS-s))
    done
done
s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_p5 PYTHONPATH=/tmp/site_p5 timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 $PY $R/offsets_drive.py >> $OUT/memcheck.txt 2>&1
step "memcheck offsets_drive.py $(tail -1 $OUT/memcheck.txt)" $? $((SECONDS-s))
for w in p5 p4; do
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w:bench timeout 90 $PY bench/router_rows.py --out $OUT/router_$w --reps 30 > $OUT/router_$w.txt 2>&1
    step "router $w" $? $((SECONDS-s))
done
for w in p5 p4 p5 p4; do
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w:bench timeout 90 $PY bench/router_rows.py --grid --out $OUT/grid_${w}_$s --reps 15 > $OUT/grid_${w}_$s.txt 2>&1
    step "grid $w $s" $? $((SECONDS-s))
done
for w in p5 p4; do
    for c in "262144 64 6 bfloat16" "32768 512 8 float16"; do
        s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w timeout 120 ncu --kernel-name regex:rtopk_pick --launch-skip 1 --launch-count 2 --cache-control all --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed $PY results/cuda/2026-12-05-pick-gap-h100/ncu_drive.py $c > $OUT/ncu_${w}_${c// /_}.txt 2>&1
        step "ncu $w $c" $? $((SECONDS-s))
    done
done
wait $SASS_PID
mkdir -p $OUT/sass && for u in rtopk_pick_rows_64_bf16_i64 rtopk_pick_lane_rows_8_f16_i64; do
    for b in old new; do cuobjdump -sass /tmp/src/$b/$u.cubin > $OUT/sass/${b}_$u.sass 2>&1; done
done
step "sass $(wc -l < $OUT/sass.txt) units" 0 0
cd $OUT && tar czf all.tgz device.txt gpu_ragged_pick.txt pytest_pick.txt memcheck.txt sass.txt sass router_* grid_* ncu_* && rm -rf router_* grid_* ncu_* sass
