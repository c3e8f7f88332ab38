#!/usr/bin/env bash
# Usage (from the repository root on the device): callc.sh — call c (record.md): kb1 with other
# constants (variants.py: kb1c8, kb1c16, kb1c8l5, kb1c16l5) and kb1 itself, each against
# devbin/u1/rtopk's own kernels on single shapes (20 launches, alternated twice).
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
B=devbin/u1/rtopk; chmod +x $B
T=results/cuda/2026-12-02-step-trigger-h200
SHAPES="1x32768:1024 1x40000:2048 1x49152:2048 1x65536:512 1x100000:2048 1x131072:1024 1x163840:2048 1x262144:2048 1x500000:2048 8x100000:2048 4x262144:1024 16x131072:1024"
for v in kb1c8 kb1c16 kb1c8l5 kb1c16l5 kb1; do
  mkdir -p $L/$v
  for i in 1 2; do for b in new old; do
    K=""; [ $b = new ] && K="--kernel-dir devbin/$v"
    export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b$v
    for c in $SHAPES; do sh=${c%:*}
      timeout 60 $B bench cuda --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --reps 20 --json $K > $L/$v/one_${b}_${i}_${sh}_${c#*:}.json 2>> $L/one.err
    done
  done; done
  echo "## $v" >> $S; $PY $T/one_table.py $L/$v >> $S 2>&1
done
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
