#!/usr/bin/env bash
# Exploration: the cells lost to FlashInfer/CUB under each strategy, and ncu per-kernel times.
set -u
source bench/device_call.sh
bins 28
B=/tmp/bins28/rtopk
for r in 1 2; do
  for s in auto block split radix; do
    for c in "96 49152 512,1024,2048" "256 49152 1024,2048" "96 100000 512,1024,2048" "256 100000 2048" "1 49152 512,2048" "1 100000 2048" "2 49152 512" "128 32000 20,64,1024" "128 100352 1024"; do
      set -- $c
      sweep_row $r $s $B $1 $2 $3 --strategy $s
    done
  done
  echo "round $r done $SECONDS s" >> $OUT/steps.txt
done
for c in "96 49152 1024" "96 100000 2048" "256 49152 2048" "1 100000 2048" "128 32000 64"; do
  set -- $c
  step ncu_$1_$2_$3 60 ncu --clock-control none --metrics gpu__time_duration.sum --cache-control all --csv \
    -k regex:rtopk $B bench cuda --n $1 --m $2 -k $3 --reps 3
done
cat $OUT/steps.txt
