#!/usr/bin/env bash
# Call d: the radix tier for rows below 2^20 (bins24, n2) against the build before it (bins23,
# h0): the radix GPU tests on bins24; the tier's f32 shapes by the default on both binaries in
# turn, twice (sweep.txt); the tier's grid in bf16 and f32 through both wheels
# (bench/split_rows.py --grid radix-mid: every answer checked against torch.topk).
set -uo pipefail
source bench/device_call.sh
wheel h0; wheel n2; bins 23; bins 24
T="env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t24"
step gpu_radix 200 $T /tmp/bins24/gpu --include-ignored radix
step gpu_ragged_radix 120 $T /tmp/bins24/gpu_ragged --include-ignored radix
for r in 1 2; do
    for b in 23 24; do
        for shape in "1 786432" "4 786432" "1 1000000" "4 1000000"; do
            sweep_row $r b$b /tmp/bins$b/rtopk $shape 512,1024,2048,4096,16384
        done
        for shape in "8 393216" "8 500000" "8 786432" "8 1000000" "12 500000" "16 393216" "16 500000" "16 786432" "16 1000000"; do
            sweep_row $r b$b /tmp/bins$b/rtopk $shape 256,512,1024,2048,4096,16384
        done
    done
done
for d in bf16 f32; do
    for b in h0 n2; do
        step mid_${d}_$b 100 env $(build_env $b) $PY bench/split_rows.py --out $OUT/mid_${d}_$b \
            --grid radix-mid --dtype $d --reps 15
    done
done
cd $OUT && tar czf logs.tgz *.txt mid_* && rm -rf mid_* gpu_*.txt
