#!/usr/bin/env bash
# call d (from the repository root on the device): how many blocks a small radix row should
# spread over. devbin/x: HEAD with the plan's blocks an SM (RADIX_BLOCKS_PER_SM, 4) read from
# RTOPK_X_SPREAD (an experiment binary, not committed); its kernels HEAD's, and k5's through
# --kernel-dir. Events, median of 20, normal values, alternated twice.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
B=devbin/x/rtopk; chmod +x $B
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for rep in 1 2; do for v in 1 2 3 4 6 k5_2 k5_4; do
  sp=${v##*_}; kd=""; case $v in k5_*) kd="--kernel-dir devbin/k5";; esac
  out=""
  for nmk in 1:2097152:2048 1:4194304:2048 1:4194304:8192 1:4194304:32768 2:2097152:2048 8:2097152:2048 1:33554432:2048 1:268435456:8192; do
    IFS=: read n m k <<< "$nmk"
    RTOPK_X_SPREAD=$sp timeout 90 $B bench cuda $kd --n $n --m $m -k $k --reps 20 --json > $L/t_${v}_${n}_${m}_${k}_$rep.json 2>> $L/t.err
    out="$out $(python3 -c "import json;c=json.load(open('$L/t_${v}_${n}_${m}_${k}_$rep.json'))[0];print(f\"{c['n']}x{c['m']}:{c['k']}={c['median_ms']*1000:.2f}\")" 2>&1)"
  done
  echo "== $rep spread $v:$out" >> $S
done; done
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
