#!/bin/bash
# On the device, from the repository root: Nsight Compute on the warp-row kernels of the RTop-K
# grid's N = 2^20 rows (f32, f16, bf16; exact and max_iter = 0), HEAD's wheel (w24).
set -u
D=results/cuda/2026-12-04-sixteen-bit-profile-h200
PY=/opt/torch/.venv/bin/python3
W=${W:-w24}
mkdir -p /tmp/wh $OUT/a
tar xJf devbin/pk$W.tar.xz -C /tmp/wh
$PY -m pip install -q --no-deps --target /tmp/site_$W /tmp/wh/$W/*.whl
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/a/device.txt
SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section InstructionStats"
for cell in ${CELLS:-"256 16" "512 64" "512 128" "768 64"}; do
  set -- $cell
  for dt in float32 float16 bfloat16; do for mode in exact it0; do
    f=$OUT/a/${dt}_$1_$2_$mode.txt
    RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$W PYTHONPATH=/tmp/site_$W timeout 100 ncu --profile-from-start off --cache-control all $SECTIONS \
      $PY $D/prof.py $dt 1048576 $1 $2 $mode > $f 2>&1
    echo "$dt $1 $2 $mode rc=$?" >> $OUT/a/steps.txt
  done; done
done
cd $OUT && tar czf a_all.tgz a && rm -rf a
