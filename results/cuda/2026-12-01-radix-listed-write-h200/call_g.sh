#!/usr/bin/env bash
# call g (from the repository root on the device): where the time of a small radix select goes
# (the committed build, devbin/rxd): each radix kernel's duration by Nsight Compute (caches
# flushed) at 1 x 2^21 and 1 x 2^22, k = 2048 and 8192, beside the event-timed call.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/lg; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
chmod +x devbin/rxd/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for m in 2097152 4194304; do for k in 2048 8192; do
  timeout 60 devbin/rxd/rtopk bench cuda --n 1 --m $m -k $k --reps 20 --json > $L/t_${m}_$k.json 2>> $L/t.err
  echo "== events 1 x $m k=$k: $(python3 -c "import json;print([round(c['median_ms']*1000,1) for c in json.load(open('$L/t_${m}_$k.json'))])" 2>&1) us" >> $S
  timeout 60 ncu --csv --print-units base --metrics gpu__time_duration.sum --cache-control all -k regex:radix devbin/rxd/rtopk bench cuda --n 1 --m $m -k $k --reps 1 > $L/ncu_${m}_$k.csv 2>> $L/ncu.err
  echo "== ncu 1 x $m k=$k (ns): $(grep radix $L/ncu_${m}_$k.csv | awk -F'","' '{print $5, $NF}' | head -5 | tr '\n' ' ')" >> $S
done; done
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
