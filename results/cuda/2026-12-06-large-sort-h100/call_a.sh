#!/usr/bin/env bash
# Call a: the block sort in the opt-in shared memory (k = 4097-16384) and hinted rows of
# 24577-32768 on 8 cluster blocks (build n1 / bins22) against HEAD b72181b (h0), one call.
set -u
source bench/device_call.sh
wheel h0; wheel n1; bins 22
# correctness on the new build first: the sort paths and the hinted cluster rows
step gpu_sorted 200 /tmp/bins22/gpu --include-ignored sorted
step gpu_ragged_hinted 200 /tmp/bins22/gpu_ragged --include-ignored hinted
# large k, sorted: both builds in turn, twice (checks against torch.topk inside)
for r in 1 2; do
    for b in h0 n1; do
        step sort_${b}_r$r 120 env $(build_env $b) $PY bench/sort_step.py --grid large-k \
            --reps 15 --out $OUT/sort_${b}_r$r.json
    done
done
# decode steps, hinted against plain, on rows that now take 8 blocks when hinted
shapes="--shape 2x32000:1024 --shape 16x32000:512 --shape 1x32768:2048 --shape 8x32768:2048 --shape 16x32000:64 --shape 4x30000:512"
for r in 1 2; do
    for b in h0 n1; do
        step decode_${b}_r$r 120 env $(build_env $b) $PY bench/decode.py $shapes --steps 8 \
            --no-lengths --out $OUT/decode_${b}_r$r.json
    done
done
cd $OUT && tar czf logs.tgz *.txt *.json && rm -f sort_*.json decode_*.json
