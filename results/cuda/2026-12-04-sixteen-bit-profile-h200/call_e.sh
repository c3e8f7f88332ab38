#!/bin/bash
# On the device, from the repository root: the 16-bit slot masks by one logic op a word
# (words_ge; w28) against the commit before (w27): `rtopk verify cuda --quick` in float16 and
# bfloat16 on this tree's kernel files (--kernel-dir, c/'s binary), share.py on w27 and w28
# alternated twice, the instruction count of three exact cells, the package's 16-bit CUDA
# tests on w28.
set -u
S=results/cuda/2026-12-04-adjacent-keys-h200
D=results/cuda/2026-12-04-sixteen-bit-profile-h200
PY=/opt/torch/.venv/bin/python3
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/wh $OUT/e
tar xJf devbin/bins.tar.xz -C devbin
step() { echo "$1 rc=$2 $3 s" >> $OUT/e/steps.txt; }
for w in w27 w28; do
    tar xJf devbin/pk$w.tar.xz -C /tmp/wh
    $PY -m pip install -q --no-deps --target /tmp/site_$w /tmp/wh/$w/*.whl
done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/e/device.txt
for dt in float16 bfloat16; do
    s=$SECONDS; timeout 170 devbin/rtopk verify cuda --quick --dtype $dt --kernel-dir crates/rtopk-cuda/kernels > $OUT/e/verify_$dt.txt 2>&1
    step "verify_$dt" $? $((SECONDS-s))
done
for r in 1 2; do for w in w27 w28; do
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w timeout 100 $PY $S/share.py --reps 15 > $OUT/e/share_${w}_$r.txt 2> $OUT/e/share_${w}_$r.err
    step "share $w $r" $? $((SECONDS-s))
done; done
for cell in "float16 768 64" "bfloat16 768 64" "float16 256 16"; do
    set -- $cell
    RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w28 PYTHONPATH=/tmp/site_w28 timeout 100 ncu --profile-from-start off --metrics smsp__inst_issued.sum,gpu__time_duration.sum \
      $PY $D/prof.py $1 262144 $2 $3 exact > $OUT/e/ncu_$1_$2_$3.txt 2>&1
    step "ncu $cell" $? 0
done
s=$SECONDS; (cd crates/rtopk-py && PYTHONPATH=/tmp/site_w28 RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w28 timeout 120 $PY -m pytest -q -rs -p no:cacheprovider tests -k "cuda and (float16 or bfloat16 or f16 or bf16 or 16)" > $OUT/e/pytest16.txt 2>&1)
step "pytest $(tail -1 $OUT/e/pytest16.txt)" $? $((SECONDS-s))
cd $OUT && tar czf e_all.tgz e && rm -rf e
