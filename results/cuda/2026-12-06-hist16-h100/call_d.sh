#!/usr/bin/env bash
# Call d (from the repository root on the device, $OUT its output folder): the commit's build
# (h5: h4 with the fewer-block rule for 16-bit rows gated at k >= M / 128): issue 32's bf16
# grids beside FlashInfer and CUB (bench/peers, built here), and its answers on the rows the
# rule moves against the package's CPU path.
set -uo pipefail
source bench/device_call.sh
W=/tmp/cd; mkdir -p $W
wheel h5
tar xJf devbin/vendor.tar.xz -C bench/peers
OUT=$W step split_h5 120 env $(build_env h5) $PY bench/split_rows.py --out $W/split_h5 --grid indexer,sampler,vector-k --dtype bf16 --reps 15
OUT=$W step check_h5_few 200 env $(build_env h5) $PY results/cuda/2026-12-06-h100-standing/clusters_check.py $W/check_h5_few.jsonl 3 bf16 --shapes 32:49152,64:40000,48:65536 --ks 512,2048
L=$W/peers; mkdir -p $L
BUILD_ONLY=1 BUILD_DIR=/tmp/peers OUT_DIR=$L/build OUT=$W step peers_build 240 bash bench/peers/run.sh
for g in indexer sampler vector_k; do
  OUT_DIR=$L/bf16_$g BUILD_DIR=/tmp/peers OUT=$W step peers_bf16_$g 90 bash bench/peers/run.sh --reps 20 --dtype bf16 --shapes bench/peers/$g.txt
done
cat $L/bf16_*/*.jsonl > $W/peers_bf16.jsonl 2>/dev/null
cp $OUT/device.txt $W/
tar czf $OUT/d.tgz -C $W .
cat $W/steps.txt
