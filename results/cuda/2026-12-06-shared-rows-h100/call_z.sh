#!/usr/bin/env bash
# Call z: block rows whose keys pass the registers read their shared-memory keys in 16-byte
# groups (the working tree's kernels, through --kernel-dir) against the binary's kernels:
# bins28's plan forced onto whole block rows of 40000-49152 (16384 keys in shared memory),
# bins29's split plan (first stages on fewer threads, part of each chunk in shared memory), and
# register-only rows (the default plan) that must not move; in turn, twice.
set -u
source bench/device_call.sh
for b in 28 29; do bins $b; done
KV=crates/rtopk-cuda/kernels
step compile_new 120 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_block_new /tmp/bins28/rtopk bench cuda --n 96 --m 49152 -k 512 --strategy block --kernel-dir $KV --reps 3
for r in 1 2; do
    for v in old new; do
        extra=(); [ $v = new ] && extra=(--kernel-dir $KV)
        for c in "96 49152 512,1024,2048" "32 49152 512,2048" "128 40000 64,1024"; do
            set -- $c
            sweep_row $r block_$v /tmp/bins28/rtopk $1 $2 $3 --strategy block "${extra[@]}"
        done
        for c in "96 49152 512,1024,2048" "256 49152 1024,2048" "96 100000 512,2048" "32 163840 1024,2048" "256 32768 1024"; do
            set -- $c
            sweep_row $r split29_$v /tmp/bins29/rtopk $1 $2 $3 "${extra[@]}"
        done
        for c in "96 16384 512,2048" "16384 16384 50,256" "65536 4096 128,512" "128 32000 20,1024" "1 100000 2048"; do
            set -- $c
            sweep_row $r reg_$v /tmp/bins28/rtopk $1 $2 $3 "${extra[@]}"
        done
    done
    echo "round $r done $SECONDS s" >> $OUT/steps.txt
done
cat $OUT/steps.txt
