#!/usr/bin/env bash
# Call d (from the repository root on the device, $OUT its output folder): the committed rule
# (bins3/s3: fewer, wider cluster blocks for exact f32 rows of 32769..100000 that guess)
# against HEAD before it (bins1/s1), in one call: the CLI's f32 times shape by shape (both
# builds in turn, twice), the large-k grids on both, FlashInfer and CUB on the indexer grid,
# the new wheel's answers against its CPU path on the rows the rule moves, decode steps.
set -uo pipefail
source bench/device_call.sh
R=results/cuda/2026-12-06-h100-standing
W=/tmp/cd; mkdir -p $W/cli
wheel s1; wheel s3; bins 1; bins 3
tar xJf devbin/vendor.tar.xz -C bench/peers
for pass in 1 2; do
  for n in 20 32 48 64; do
    for m in 40000 49152 65536 81920 100000; do
      for b in 1 3; do
        env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_b$b timeout 30 /tmp/bins$b/rtopk bench cuda --n $n --m $m -k 512,1024,2048 --reps 20 --json > $W/cli/p${pass}_b${b}_${n}_${m}.json 2> $W/cli/p${pass}_b${b}_${n}_${m}.err
      done
    done
  done
done
echo "cli done $SECONDS" >> $W/steps.txt
for b in 1 3; do
  env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_b$b timeout 60 /tmp/bins$b/rtopk bench cuda --grid large-k --reps 20 --json > $W/grid_b$b.json 2> $W/grid_b$b.err
done
echo "grids done $SECONDS" >> $W/steps.txt
BUILD_ONLY=1 BUILD_DIR=/tmp/peers OUT_DIR=$W/peers_build timeout 240 bash bench/peers/run.sh > $W/peers_build.txt 2>&1
OUT_DIR=$W/peers_f32 BUILD_DIR=/tmp/peers timeout 60 bash bench/peers/run.sh --reps 20 --dtype f32 --shapes bench/peers/indexer.txt > /dev/null 2> $W/peers_f32.log
echo "peers done $SECONDS" >> $W/steps.txt
OUT=$W step check_s3 200 env $(build_env s3) $PY $R/clusters_check.py $W/check_s3.jsonl 15 f32,bf16 --shapes 32:49152,32:100000,48:65536,64:40000,66:81920,20:100000 --ks 1250,2048
for b in s3 s1; do
  OUT=$W step decode_$b 90 env $(build_env $b) $PY bench/decode.py --steps 8 --shape 32x100000:2048 --shape 48x49152:2048 --shape 64x65536:1024 --out $W/decode_$b.json
done
cp $OUT/device.txt $W/
tar czf $OUT/d.tgz -C $W .
cat $W/steps.txt
