#!/usr/bin/env bash
# Usage (from the repository root on the device): callc.sh — call c (record.md): st2's stamps
# (variants.py: each block runs its row twice in one launch, the second pass on warm
# instruction caches), at five shapes, read by twice.py.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
R=results/cuda/2026-12-02-round-levels-h200
tar xJf devbin/pk3.tar.xz -C devbin
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
B=devbin/b1/rtopk; chmod +x $B
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_st2
for c in 1x100000:2048 1x262144:2048 1x49152:2048 1x131072:1024 1x163840:2048; do sh=${c%:*}
  timeout 60 $B bench cuda --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --reps 20 --kernel-dir devbin/st2 > $L/twice_${sh}_${c#*:}.txt 2>&1
  echo "== $c rc=$?" >> $S; grep -m2 -iE "error|panic" $L/twice_${sh}_${c#*:}.txt | cut -c1-300 >> $S
done
$PY $R/twice.py $L >> $S 2>&1
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
