#!/usr/bin/env bash
# Call f: a --kernel-dir variant (devbin/kv16: the commit's kernel files with register16.diff
# applied, the block sort of 16384 positions in registers, 16 a thread of 1024) against bins25's
# own kernels, in turn, twice, sorted calls.
set -uo pipefail
source bench/device_call.sh
bins 25
for r in 1 2; do
    for v in base kv16; do
        kd=""; [ $v = kv16 ] && kd="--kernel-dir devbin/kv16"
        for shape in "1 4194304" "8 524288"; do
            set -- $shape
            echo "== $r $v $1 $2" >> $OUT/sort16.txt
            env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$v /tmp/bins25/rtopk bench cuda --n $1 --m $2 \
                -k 8192,9000,16384 --sorted --reps 15 --json $kd 2>&1 | tail -c 2500 >> $OUT/sort16.txt
        done
    done
done
