#!/usr/bin/env bash
# Call y: split first stages on fewer threads where that takes one wave fewer (bins29: rtopk-plan's
# fewer_waves, keys past the registers in shared memory, at most half the chunk) against HEAD's
# plan (bins28), in turn, twice, on every shape of the grids it moves (<= 1 GB of input);
# bins29's answers against the CPU reference on seven moved shapes (waves_check.py) and its GPU
# tests of split rows.
set -u
source bench/device_call.sh
D=results/cuda/2026-12-06-shared-rows-h100
for b in 28 29; do bins $b; done
step check 200 $PY $D/waves_check.py /tmp/bins29/rtopk /tmp/wcheck
step gpu_split 150 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_b29 /tmp/bins29/gpu --include-ignored \
    --test-threads 1 split every_step_kind floor
for r in 1 2; do
    for b in 28 29; do
        for c in "16 1048576 1024" "32 163840 512,1024,2048" "32 262144 1024" "32 500000 512,1024,2048" "32 1048576 1024" "32 2097152 512,1024,2048" "64 131072 1024" "64 262144 1024" "64 1048576 1024" "96 49152 512,1024,2048" "96 100000 512,1024,2048" "96 163840 512,1024,2048" "96 500000 512,1024,2048" "96 2097152 512,1024,2048" "128 65536 1024" "128 100352 1024" "128 131072 1024" "128 262144 1024" "128 1048576 1024" "256 32768 1024" "256 49152 512,1024,2048" "256 65536 1024" "256 100000 512,1024,2048" "256 131072 1024" "256 163840 512,1024,2048" "256 262144 1024" "256 500000 512,1024,2048" "256 1048576 1024" "512 32768 1024" "512 65536 1024" "512 131072 1024" "512 262144 1024" "1024 32768 1024" "1024 65536 1024" "1024 131072 1024" "1024 262144 1024"; do
            set -- $c
            sweep_row $r b$b /tmp/bins$b/rtopk $1 $2 $3
        done
    done
    echo "round $r done $SECONDS s" >> $OUT/steps.txt
done
cat $OUT/steps.txt
tail -3 $OUT/check.txt
