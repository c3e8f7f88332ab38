#!/usr/bin/env bash
# Call b: the commit's binaries (bins23) on the device's correctness checks, the large-k sorts
# on many rows and in bf16 against HEAD before it (h0), and issue 32's lost f32 cells on every
# launch family the CLI can force.
set -u
source bench/device_call.sh
wheel h0; wheel n1; bins 23
step gpu_ragged_hinted 150 /tmp/bins23/gpu_ragged --include-ignored hinted
step verify_f32 200 /tmp/bins23/rtopk verify cuda --quick --dtype float32
for r in 1 2; do
    for b in h0 n1; do
        step many_${b}_r$r 100 env $(build_env $b) $PY bench/sort_step.py --grid large-k-many \
            --reps 10 --out $OUT/many_${b}_r$r.json
    done
done
step bf16_n1 100 env $(build_env n1) $PY bench/sort_step.py --grid large-k --dtype bfloat16 \
    --reps 10 --out $OUT/bf16_n1.json
# issue 32's lost f32 cells, forced onto each family (the default first)
for s in auto block split radix; do
    for shape in "96 49152" "96 100000" "256 49152" "256 100000" "128 32000" "8 500000"; do
        set -- $shape
        echo "== $s $1 x $2" >> $OUT/families.txt
        env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_b23 /tmp/bins23/rtopk bench cuda --n $1 --m $2 \
            -k 20,512,1024,2048 --reps 20 --strategy $s --json 2>&1 | tail -c 4000 >> $OUT/families.txt
    done
done
cd $OUT && tar czf logs.tgz *.txt *.json && rm -f many_*.json bf16_n1.json
