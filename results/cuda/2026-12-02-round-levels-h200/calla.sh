#!/usr/bin/env bash
# Usage (from the repository root on the device): calla.sh — call a (record.md): stage stamps of
# st_head, st_lv6 and st_bp6 (variants.py), then h0, head, lv5, lv6, lv7, lv6c, w6, bp6 and lw6
# against devbin/b1/rtopk's own kernels on single shapes (20 launches, twice, the binary's own
# first each time), then `rtopk verify cuda --quick --dtype float32 --kernel-dir devbin/lw6`.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
R=results/cuda/2026-12-02-cluster-gather-h200; T=results/cuda/2026-12-02-step-trigger-h200
tar xJf devbin/pk1.tar.xz -C devbin
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
B=devbin/b1/rtopk; chmod +x $B
for v in st_head st_lv6 st_bp6; do
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$v
  for c in 1x100000:2048 1x49152:2048 1x65536:2048 1x131072:1024; do sh=${c%:*}
    timeout 60 $B bench cuda --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --reps 20 --kernel-dir devbin/$v > $L/stamps_${v}_${sh}_${c#*:}.txt 2>&1
    echo "== $v $c rc=$?" >> $S; grep -m2 -iE "error|panic" $L/stamps_${v}_${sh}_${c#*:}.txt | cut -c1-400 >> $S
  done
done
$PY $R/stamps.py $L >> $S 2>&1
echo "== stamps done $SECONDS s" >> $S
SHAPES="1x32768:1024 1x40000:2048 1x49152:2048 1x65536:512 1x65536:2048 1x81920:2048 1x100000:512 1x100000:1024 1x100000:2048 1x131072:1024 1x131072:2048 1x163840:2048 1x262144:512 1x262144:2048 1x500000:2048 8x100000:2048 4x262144:1024 16x131072:1024"
VS="h0 head lv5 lv6 lv7 lv6c w6 bp6 lw6"
for i in 1 2; do
  for v in old $VS; do
    [ $SECONDS -gt 400 ] && break
    mkdir -p $L/$v
    K=""; [ $v != old ] && K="--kernel-dir devbin/$v"
    export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$v
    for c in $SHAPES; do sh=${c%:*}
      timeout 60 $B bench cuda --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --reps 20 --json $K > $L/$v/one_new_${i}_${sh}_${c#*:}.json 2>> $L/one_$v.err
    done
  done
  echo "== run $i $SECONDS s" >> $S
done
for v in $VS; do  # the binary's own times, as each variant's "old"
  for f in $L/old/one_new_*; do b=$(basename $f); cp $f $L/$v/${b/one_new_/one_old_}; done
done
tar czf $L/raw.tgz -C $L old $VS
for v in $VS; do echo "## $v" >> $S; $PY $T/one_table.py $L/$v >> $S 2>&1; head -c 300 $L/one_$v.err >> $S; done
if [ $SECONDS -lt 420 ]; then
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_lw6
  s=$SECONDS; timeout 170 $B verify cuda --quick --dtype float32 --kernel-dir devbin/lw6 > $L/verify_lw6.txt 2>&1; echo "== verify lw6 rc=$? $((SECONDS-s)) s" >> $S; grep -E "verify cuda on|MISMATCH|rror" $L/verify_lw6.txt | head -3 | cut -c1-600 >> $S
fi
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
