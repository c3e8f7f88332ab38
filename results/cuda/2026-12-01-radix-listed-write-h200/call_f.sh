#!/usr/bin/env bash
# call f (from the repository root on the device): whether the write's shared lists (2 x 1024
# words) cost the rows that keep nothing: the committed kernels (devbin/rxd) against kv8 (the
# same with RADIX_WRITE_LIST 256, by --kernel-dir) and c758368's (devbin/rxb), one row of
# 2^28 and 2^25, normal and uniform, alternated three times; the write kernel by Nsight Compute
# on a uniform row of 2^28.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/lf; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
chmod +x devbin/rxd/rtopk devbin/rxb/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for i in 1 2 3; do for v in rxd kv8 rxb; do
  B=devbin/rxd/rtopk; kd=""; [ $v = kv8 ] && kd="--kernel-dir devbin/kv8"; [ $v = rxb ] && B=devbin/rxb/rtopk
  for m in 268435456 33554432; do
    timeout 60 $B bench cuda $kd --n 1 --m $m -k 8192,32768 --dist normal,uniform --reps 10 --json > $L/t_${v}_${m}_$i.json 2>> $L/t.err
    echo "== $v $m $i rc=$? $(python3 -c "import json;print([(c['input'],c['k'],round(c['median_ms'],4)) for c in json.load(open('$L/t_${v}_${m}_$i.json'))])" 2>&1)" >> $S
  done
done; done
for v in rxd kv8 rxb; do
  B=devbin/rxd/rtopk; kd=""; [ $v = kv8 ] && kd="--kernel-dir devbin/kv8"; [ $v = rxb ] && B=devbin/rxb/rtopk
  timeout 60 ncu --csv --print-units base --metrics gpu__time_duration.sum --cache-control all -k regex:radix $B bench cuda $kd --n 1 --m 268435456 -k 32768 --dist uniform --reps 1 > $L/ncu_$v.csv 2>> $L/ncu.err
  echo "== ncu uniform $v: $(grep radix $L/ncu_$v.csv | awk -F'","' '{print $5, $NF}' | head -5 | tr '\n' ' ')" >> $S
done
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
