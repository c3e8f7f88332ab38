#!/usr/bin/env bash
# Call c: few f32 rows of 2^17 to 2^20 at k = 256-2048, the default against the radix select
# forced (bins23: the same kernels as b72181b for these rows), to set a radix tier.
set -u
source bench/device_call.sh
bins 23
for s in auto radix; do
    for n in 1 2 4 8 16 32; do
        for m in 131072 163840 262144 393216 500000 786432; do
            echo "== $s $n $m" >> $OUT/tier.txt
            env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_b23 /tmp/bins23/rtopk bench cuda --n $n --m $m \
                -k 256,512,1024,2048 --reps 20 --strategy $s --json 2>&1 | tail -c 3000 >> $OUT/tier.txt
        done
    done
done
