#!/usr/bin/env bash
# Call w: whether a split's first stage pays for a second, thin wave of blocks: the default
# (bins28) on 64-132 rows of 49152 (six chunks of 8192 a row, blocks of 256 threads, four an SM:
# 528 at once on 132 SMs, reached at 88 rows) and of 100000, twice; and 88-104 rows of 49152
# with the block-row entry points bound to 256 threads and five blocks an SM (kv_regs/, through
# --kernel-dir: at most 51 registers a thread), in turn with the binary's kernels.
set -u
source bench/device_call.sh
bins 28
D=results/cuda/2026-12-06-shared-rows-h100
# kv_regs/: the kernel files with regs48.diff (the folder was in the tree when the call ran)
[ -d $D/kv_regs ] || { cp -r crates/rtopk-cuda/kernels $D/kv_regs && patch -s $D/kv_regs/block_rows.cu $D/regs48.diff; }
step regs_probe 120 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_regs /tmp/bins28/rtopk bench cuda --n 96 \
    --m 49152 -k 1024 --reps 5 --kernel-dir $D/kv_regs
for r in 1 2; do
    for n in 64 80 88 92 96 104 112 132; do
        sweep_row $r b28 /tmp/bins28/rtopk $n 49152 512,1024,2048
    done
    for n in 64 96 132; do
        sweep_row $r b28 /tmp/bins28/rtopk $n 100000 512,1024,2048
    done
    for n in 88 96 104; do
        sweep_row $r regs /tmp/bins28/rtopk $n 49152 512,1024,2048 --kernel-dir $D/kv_regs
    done
done
cat $OUT/steps.txt
head -3 $OUT/regs_probe.txt
