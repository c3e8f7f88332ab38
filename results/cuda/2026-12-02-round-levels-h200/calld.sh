#!/usr/bin/env bash
# Usage (from the repository root on the device): calld.sh — call d (record.md): st3's stamps
# (variants.py: the stage stamps, and each whole-row count's own part and cluster barrier), at
# five shapes, read by stamps.py and rounds.py.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
R=results/cuda/2026-12-02-round-levels-h200
tar xJf devbin/pk4.tar.xz -C devbin
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
B=devbin/b1/rtopk; chmod +x $B
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_st3
for c in 1x100000:2048 1x131072:1024 1x65536:2048 1x49152:2048 1x262144:2048 1x100000:512; do sh=${c%:*}
  timeout 60 $B bench cuda --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --reps 20 --kernel-dir devbin/st3 > $L/rounds_${sh}_${c#*:}.txt 2>&1
  echo "== $c rc=$?" >> $S; grep -m2 -iE "error|panic" $L/rounds_${sh}_${c#*:}.txt | cut -c1-300 >> $S
  cp $L/rounds_${sh}_${c#*:}.txt $L/stamps_${sh}_${c#*:}.txt
done
$PY results/cuda/2026-12-02-cluster-gather-h200/stamps.py $L >> $S 2>&1
$PY $R/rounds.py $L >> $S 2>&1
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
