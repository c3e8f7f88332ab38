#!/usr/bin/env bash
# Call h: wide clusters with the guessed bracket, tried. bins20 = the commit with wide clusters
# for every plain unsorted f32 row of 65536-131072 that does not narrow (guessing or not);
# run on its own kernels (label 20: the wide instantiation does not guess) and on
# devbin/kwg (label 21: the commit's kernels with the guess compiled into the wide
# instantiation too), against the commit (bins19, label 19), f32, 1-8 rows x 65536-262144 x
# k = 512-4000, each in turn, twice (h/sweep.txt).
set -uo pipefail
source bench/device_call.sh
bins 19; bins 20
bench() {  # bench ROUND LABEL N M KS [ARGS]
  local r=$1 label=$2 n=$3 m=$4 ks=$5; shift 5
  local b=$label; [ $label = 21 ] && b=20
  env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$label /tmp/bins$b/rtopk bench cuda --n $n --m $m -k $ks --reps 30 --json "$@" 2>/dev/null \
    | $PY -c "import json,sys; s=sys.stdin.read(); d=json.loads(s[s.index('['):]); print($r, $label, $n, $m, ' '.join(f\"{r['k']}:{r['median_ms']*1000:.2f}\" for r in d if not r['sorted']))" >> $OUT/sweep.txt
}
for r in 1 2; do
  for n in 1 2 4 8; do
    for m in 65536 100000 131072 163840 262144; do
      bench $r 19 $n $m 512,1024,2048,4000
      bench $r 20 $n $m 512,1024,2048,4000
      bench $r 21 $n $m 512,1024,2048,4000 --kernel-dir devbin/kwg
    done
  done
done
wc -l $OUT/sweep.txt
