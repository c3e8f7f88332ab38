#!/usr/bin/env bash
# call c (from the repository root on the device): the keeping pass in two variants, read by
# rxc's CLI with --kernel-dir (no rebuild): kv6 (keep_key compares first digits, no
# above_matches), kv7 (kv6 with each thread's places by its own shared atomic: no vote, no
# warp scan) against rxc's embedded kernels: one row of 2^25 and 2^28, normal and uniform,
# alternated twice; each digit pass by Nsight Compute.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/lc; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
chmod +x devbin/rxc/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=devbin/rxc/rtopk
for i in 1 2; do for v in rxc kv6 kv7; do
  kd=""; [ $v != rxc ] && kd="--kernel-dir devbin/$v"
  for m in 268435456 33554432; do
    timeout 60 $B bench cuda $kd --n 1 --m $m -k 8192,32768 --dist normal,uniform --reps 10 --json > $L/t_${v}_${m}_$i.json 2>> $L/t.err
    echo "== $v $m $i rc=$? $(python3 -c "import json;print([(c['input'],c['k'],round(c['median_ms'],4)) for c in json.load(open('$L/t_${v}_${m}_$i.json'))])" 2>&1)" >> $S
  done
done; done
for v in rxc kv6 kv7; do
  kd=""; [ $v != rxc ] && kd="--kernel-dir devbin/$v"
  timeout 60 ncu --csv --print-units base --metrics gpu__time_duration.sum --cache-control all -k regex:radix $B bench cuda $kd --n 1 --m 268435456 -k 32768 --dist normal --reps 1 > $L/ncu_$v.csv 2>> $L/ncu.err
  echo "== ncu $v: $(grep radix $L/ncu_$v.csv | awk -F'","' '{print $5, $NF}' | head -5 | tr '\n' ' ')" >> $S
done
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
