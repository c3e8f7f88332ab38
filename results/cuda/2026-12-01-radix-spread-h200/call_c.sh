#!/usr/bin/env bash
# call c (from the repository root on the device): smaller tails for the radix steps, each a
# copy of HEAD's kernels through HEAD's CLI (devbin/a) --kernel-dir: k0 HEAD's; k3 the digit
# pass's fence by thread 0 after the barrier (as cooperative groups' grid sync) instead of by
# every thread before it; k5 k3 and choose_digit clearing only the non-zero bins; k7 k5 and the
# count's and write's words loaded before their sums, the write's values read while gathering.
# Events, median of 20, one row, normal values, alternated twice; each kernel by Nsight
# Compute (warm) for k7.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/lc; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
B=devbin/a/rtopk; chmod +x $B
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for rep in 1 2; do for v in k0 k3 k5 k7; do
  for mk in 2097152:2048 4194304:2048 4194304:8192 33554432:2048; do m=${mk%%:*}; k=${mk##*:}; timeout 90 $B bench cuda --kernel-dir devbin/$v --n 1 --m $m -k $k --reps 20 --json > $L/t_${v}_${m}_${k}_$rep.json 2>> $L/t.err; done
  echo "== $rep $v: $(python3 -c "
import json,glob
out=[]
for f in sorted(glob.glob('$L/t_${v}_*_$rep.json')):
    for c in json.load(open(f)): out.append((c['m'],c['k'],round(c['median_ms']*1000,2)))
print(sorted(set(out)))" 2>&1)" >> $S
done; done
for v in k0 k7; do
timeout 60 ncu --csv --print-units base --metrics gpu__time_duration.sum --cache-control none -k regex:radix $B bench cuda --kernel-dir devbin/$v --n 1 --m 2097152 -k 2048 --reps 3 > $L/ncu_$v.csv 2> $L/ncu.err
echo "== ncu $v $(grep radix $L/ncu_$v.csv | awk -F'","' '{print $5, $NF}' | tr '\n' ' ')" >> $S
done
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
