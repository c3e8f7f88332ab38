#!/usr/bin/env bash
# Usage (from the repository root on the device): calla.sh — call a (record.md): stage stamps of
# 0e9436b's kernel and kg (variants.py), then kg and kgr against devbin/u5/rtopk's own kernels
# (the binary built from 0e9436b) on single shapes (20 launches, alternated twice), then `rtopk
# verify cuda --quick --dtype float32 --kernel-dir devbin/kg`.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
R=results/cuda/2026-12-02-cluster-gather-h200; T=results/cuda/2026-12-02-step-trigger-h200
tar xJf devbin/pka.tar.xz -C devbin
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
B=devbin/u5/rtopk; chmod +x $B
for v in stamps kgs; do
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$v
  for c in 1x100000:2048 1x262144:2048 1x163840:2048 1x49152:2048; do sh=${c%:*}
    timeout 60 $B bench cuda --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --reps 20 --kernel-dir devbin/$v > $L/stamps_${v}_${sh}_${c#*:}.txt 2>&1
    echo "== $v $c rc=$?" >> $S
  done
done
$PY $R/stamps.py $L >> $S 2>&1
SHAPES="1x32768:1024 1x40000:2048 1x49152:2048 1x65536:512 1x100000:2048 1x100000:512 1x131072:1024 1x163840:2048 1x262144:2048 1x262144:512 1x500000:2048 8x100000:2048 4x262144:1024 16x131072:1024 32x100000:2048"
for v in kg kgr; do
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
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_newkg
s=$SECONDS; timeout 200 $B verify cuda --quick --dtype float32 --kernel-dir devbin/kg > $L/verify_kg.txt 2>&1; echo "== verify kg rc=$? $((SECONDS-s)) s" >> $S; grep -E "verify cuda on|MISMATCH|rror" $L/verify_kg.txt | head -3 | cut -c1-600 >> $S
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
