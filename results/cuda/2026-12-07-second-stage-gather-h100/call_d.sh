#!/usr/bin/env bash
# Call d (the warm machine of call c, seconds later): bins34 against bins35 in turn, three
# rounds, on call c's cells and two more of each kind (f32, median of 30; the better round).
set -u
source bench/device_call.sh
bins 34
bins 35
for r in 1 2 3; do
    for v in 35 34; do
        for c in "96 49152 512,1024,2048" "256 49152 2048" "96 100000 1024,2048" "65536 4096 512" \
                 "65536 8192 512"; do
            set -- $c
            sweep_row $r b$v /tmp/bins$v/rtopk $1 $2 $3
        done
    done
done
$PY results/cuda/2026-12-06-hist32-h100/sweep_compare.py $OUT/sweep.txt b35 b34 > $OUT/compare.txt 2>&1
cat $OUT/compare.txt
