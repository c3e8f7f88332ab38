#!/bin/bash
# On the device, from the repository root: where the warp rows' instructions go in exact mode:
# Nsight Compute's source counters on one call (N = 2^18 of the RTop-K grid's shapes), the SASS
# with each instruction's executed count (--page source --print-source sass), HEAD's wheel.
set -u
D=results/cuda/2026-12-04-sixteen-bit-profile-h200
PY=/opt/torch/.venv/bin/python3
W=${W:-w24}
mkdir -p /tmp/wh $OUT/b
tar xJf devbin/pk$W.tar.xz -C /tmp/wh
$PY -m pip install -q --no-deps --target /tmp/site_$W /tmp/wh/$W/*.whl
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/b/device.txt
for cell in ${CELLS:-"float16 768 64" "float32 768 64" "bfloat16 768 64" "float16 256 16" "float32 256 16" "float16 512 128"}; do
  set -- $cell
  r=/tmp/rep_$1_$2_$3
  RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$W PYTHONPATH=/tmp/site_$W timeout 120 ncu --profile-from-start off --section SourceCounters --section WarpStateStats -o $r \
    $PY $D/prof.py $1 262144 $2 $3 exact > $OUT/b/log_$1_$2_$3.txt 2>&1
  echo "$cell rc=$?" >> $OUT/b/steps.txt
  ncu -i $r.ncu-rep --page source --print-source sass --csv > $OUT/b/sass_$1_$2_$3.csv 2>&1
done
cd $OUT && tar czf b_all.tgz b && rm -rf b
