#!/bin/bash
# On the device, from the repository root: the committed tree's wheel (w27: the summed masks,
# the mode chosen once, 16-bit rows past 256 on four rows a warp only where k <= M/8) against
# HEAD's (w24): bench/dtypes16.py --quick on each, then the package's 16-bit CUDA tests on w27.
set -u
PY=/opt/torch/.venv/bin/python3
mkdir -p /tmp/wh $OUT/d
step() { echo "$1 rc=$2 $3 s" >> $OUT/d/steps.txt; }
for w in w24 w27; do
    tar xJf devbin/pk$w.tar.xz -C /tmp/wh
    $PY -m pip install -q --no-deps --target /tmp/site_$w /tmp/wh/$w/*.whl
done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/d/device.txt
for w in w24 w27; do
    s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w PYTHONPATH=/tmp/site_$w:bench timeout 150 $PY bench/dtypes16.py --quick --out $OUT/d/dtypes16_$w > $OUT/d/dtypes16_$w.txt 2>&1
    step "dtypes16 $w" $? $((SECONDS-s))
done
s=$SECONDS; (cd crates/rtopk-py && PYTHONPATH=/tmp/site_w27 RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w27 timeout 200 $PY -m pytest -q -rs -p no:cacheprovider tests -k "cuda and (float16 or bfloat16 or f16 or bf16 or 16)" > $OUT/d/pytest16.txt 2>&1)
step "pytest $(tail -1 $OUT/d/pytest16.txt)" $? $((SECONDS-s))
cd $OUT && tar czf d_all.tgz d && rm -rf d
