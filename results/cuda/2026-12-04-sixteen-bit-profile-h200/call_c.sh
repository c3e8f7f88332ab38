#!/bin/bash
# On the device, from the repository root: the 16-bit packed counts as summed masks and the
# mode chosen once per row (w25, and its rtopk binary and GPU tests in devbin/) against HEAD's
# kernels (w24): GPU tests, `rtopk verify cuda --quick` in float16 and bfloat16, share.py
# (../2026-12-04-adjacent-keys-h200) on w24 and w25 alternated twice, the M = 512 cells on
# w26 (w25 with 16-bit rows of 512 on two rows a warp from k = 64), and Nsight Compute's
# instruction count of three exact cells on w25.
set -u
D=results/cuda/2026-12-04-sixteen-bit-profile-h200
S=results/cuda/2026-12-04-adjacent-keys-h200
PY=/opt/torch/.venv/bin/python3
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/wh $OUT/c
tar xJf devbin/bins.tar.xz -C devbin
step() { echo "$1 rc=$2 $3 s" >> $OUT/c/steps.txt; }
for w in w24 w25 w26; do
    tar xJf devbin/pk$w.tar.xz -C /tmp/wh
    $PY -m pip install -q --no-deps --target /tmp/site_$w /tmp/wh/$w/*.whl
done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/c/device.txt
s=$SECONDS; timeout 120 devbin/gpu --include-ignored --test-threads 4 sixteen_bit_rows_match integer_rows_match > $OUT/c/gpu.txt 2>&1
step "gpu $(grep 'test result' $OUT/c/gpu.txt)" $? $((SECONDS-s))
s=$SECONDS; timeout 150 devbin/gpu_ragged --include-ignored --test-threads 8 > $OUT/c/gpu_ragged.txt 2>&1
step "gpu_ragged $(grep 'test result' $OUT/c/gpu_ragged.txt)" $? $((SECONDS-s))
for dt in float16 bfloat16; do
    s=$SECONDS; timeout 170 devbin/rtopk verify cuda --quick --dtype $dt > $OUT/c/verify_$dt.txt 2>&1
    step "verify_$dt $(tail -1 $OUT/c/verify_$dt.txt)" $? $((SECONDS-s))
done
for r in 1 2; do for w in w24 w25; do
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w timeout 100 $PY $S/share.py --reps 15 > $OUT/c/share_${w}_$r.txt 2> $OUT/c/share_${w}_$r.err
    step "share $w $r" $? $((SECONDS-s))
done; done
for w in w25 w26; do
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w timeout 100 $PY $S/share.py --reps 15 --m 512 --k 32,64,96,128 > $OUT/c/m512_${w}.txt 2> $OUT/c/m512_${w}.err
    step "m512 $w" $? $((SECONDS-s))
done
for cell in "float16 768 64" "bfloat16 768 64" "float16 256 16" "float16 512 128"; do
    set -- $cell
    RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w25 PYTHONPATH=/tmp/site_w25 timeout 100 ncu --profile-from-start off --metrics smsp__inst_issued.sum,gpu__time_duration.sum \
      $PY $D/prof.py $1 262144 $2 $3 exact > $OUT/c/ncu_$1_$2_$3.txt 2>&1
    step "ncu $cell" $? 0
done
cd $OUT && tar czf c_all.tgz c && rm -rf c
