#!/usr/bin/env bash
# call f (from the repository root on the device): an experiment — count_digits with 16-byte
# loads (devbin/kv5: the kernel files with f/count_digits_float4.diff applied, f32 only, read
# with --kernel-dir) against call e's build (devbin/rxa), each radix kernel by Nsight Compute
# at 1 x 2^28, k = 32768 and 8192, normal and uniform values, and both timed twice.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/lf; mkdir -p $L
chmod +x devbin/rxa/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for v in base kv5; do
  kd=""; [ $v = kv5 ] && kd="--kernel-dir devbin/kv5"
  timeout 90 ncu --csv --print-units base --metrics gpu__time_duration.sum --cache-control all -k regex:radix devbin/rxa/rtopk bench cuda --n 1 --m 268435456 -k 32768,8192 --dist normal,uniform --reps 1 $kd > $L/ncu_$v.csv 2> $L/ncu_$v.err; echo "== ncu $v rc=$?" >> $S
  grep radix $L/ncu_$v.csv | awk -F'","' '{print $5, $NF}' >> $S
done
for i in 1 2; do for v in base kv5; do
  kd=""; [ $v = kv5 ] && kd="--kernel-dir devbin/kv5"
  for m in 268435456 33554432; do
  timeout 60 devbin/rxa/rtopk bench cuda --n 1 --m $m -k 8192,32768 --dist normal,uniform --reps 10 --json $kd > $L/t_${v}_${m}_$i.json 2> $L/t_${v}_${m}_$i.err; echo "== time $v $m $i rc=$?" >> $S
  python3 -c "import json;print([(c['m'],c['k'],round(c['median_ms'],4)) for c in json.load(open('$L/t_${v}_${m}_$i.json'))])" >> $S
  done
done; done
tar czf $OUT/logs.tgz -C $L .
