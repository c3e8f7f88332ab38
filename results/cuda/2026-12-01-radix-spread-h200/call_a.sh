#!/usr/bin/env bash
# call a (from the repository root on the device): what the count step of a small radix select
# costs. devbin/k0 = HEAD's kernels; k1 = the same with rtopk_radix_count returning after its
# wait; k2 = k1 with rtopk_radix_write returning too (answers wrong: timing only). Events,
# median of 20, one row, normal values; then each radix kernel by Nsight Compute, caches warm
# (--cache-control none) and flushed (all), HEAD's kernels.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/lg; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
B=devbin/a/rtopk; chmod +x $B
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for rep in 1 2; do for v in k0 k1 k2; do for mk in 2097152:2048 4194304:2048 4194304:8192 33554432:2048 268435456:8192; do
  m=${mk%%:*}; k=${mk##*:}
  timeout 90 $B bench cuda --kernel-dir devbin/$v --n 1 --m $m -k $k --reps 20 --json > $L/t_${v}_${m}_${k}_$rep.json 2>> $L/t.err
  echo "== $rep $v 1 x $m k=$k: $(python3 -c "import json;print([round(c['median_ms']*1000,2) for c in json.load(open('$L/t_${v}_${m}_${k}_$rep.json'))])" 2>&1) us" >> $S
done; done; done
for cc in none all; do for m in 2097152 4194304; do
  timeout 90 ncu --csv --print-units base --metrics gpu__time_duration.sum --cache-control $cc -k regex:radix $B bench cuda --n 1 --m $m -k 2048 --reps 3 > $L/ncu_${cc}_$m.csv 2>> $L/ncu.err
  echo "== ncu $cc 1 x $m k=2048 (ns): $(grep radix $L/ncu_${cc}_$m.csv | awk -F'","' '{print $5, $NF}' | tr '\n' ' ')" >> $S
done; done
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
