#!/usr/bin/env bash
# Call e (from the repository root on the device, $OUT its output folder): the build that
# lands (bins4/s4: call d's rule, rows of their own length or k kept on the split) against
# HEAD before the change (bins1/s1): decode steps with hints and rows of their own length on
# the shapes the rule moves, the new wheel's answers against its CPU path, the large-k grids.
set -uo pipefail
source bench/device_call.sh
R=results/cuda/2026-12-06-h100-standing
W=/tmp/ce; mkdir -p $W
wheel s1; wheel s4; bins 1; bins 4
for b in s4 s1 s4 s1; do
  OUT=$W step decode_$b 90 env $(build_env $b) $PY bench/decode.py --steps 8 --shape 32x100000:2048 --shape 48x49152:2048 --shape 64x65536:1024 --shape 20x81920:2048 --out $W/decode_$b.json
  cat $W/decode_$b.txt >> $W/decode_all.txt
done
OUT=$W step check_s4 200 env $(build_env s4) $PY $R/clusters_check.py $W/check_s4.jsonl 15 f32 --shapes 32:49152,32:100000,48:65536,64:40000,66:81920,20:100000 --ks 1250,2048
for b in 4 1; do
  env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_b$b timeout 60 /tmp/bins$b/rtopk bench cuda --grid large-k --reps 20 --json > $W/grid_b$b.json 2> $W/grid_b$b.err
done
cp $OUT/device.txt $W/
tar czf $OUT/e.tgz -C $W .
cat $W/steps.txt
