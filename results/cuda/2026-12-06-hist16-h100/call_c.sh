#!/usr/bin/env bash
# Call c (from the repository root on the device, $OUT its output folder): the build that lands
# (h4/bins6: h1's cluster histograms, h3's block histograms, h2's fewer blocks for 16-bit rows):
# its GPU test, every answer of hist16_check.py's rows (cluster and block shapes) and of the
# fewer-block rows against the package's CPU path; the fewer-block rule on top of the block
# histograms (h4 against h3, alternated); bf16 decode steps (plain, hinted, rows of their own
# length) against HEAD's kernels (s4); then issue 32's bf16 grids beside FlashInfer and CUB.
set -uo pipefail
source bench/device_call.sh
R=results/cuda/2026-12-06-hist16-h100
W=/tmp/cc; mkdir -p $W
wheel h4; wheel h3; wheel s4; bins 6
tar xJf devbin/vendor.tar.xz -C bench/peers
OUT=$W step gpu_test 240 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t /tmp/bins6/gpu --ignored --exact sixteen_bit_rows_by_histograms_match_bisect_and_the_simulator
OUT=$W step check_h4 240 env $(build_env h4) $PY $R/hist16_check.py check $W/check_h4.jsonl
OUT=$W step check_h4_block 240 env $(build_env h4) $PY $R/hist16_check.py check $W/check_h4_block.jsonl --block
OUT=$W step check_h4_few 200 env $(build_env h4) $PY results/cuda/2026-12-06-h100-standing/clusters_check.py $W/check_h4_few.jsonl 3 bf16 --shapes 32:49152,64:40000,20:100000 --ks 64,2048
FEW=20:49152,32:49152,48:49152,64:40000,20:81920,32:81920,20:100000,32:100000,48:65536,66:81920
i=0
for b in h4 h3 h4 h3; do
  i=$((i + 1))
  OUT=$W step few_${b}_$i 120 env $(build_env $b) $PY $R/hist16_check.py time $W/few_${b}_$i.jsonl 15 bf16 --unsorted --shapes $FEW
done
for b in h4 s4; do
  OUT=$W step decode_$b 120 env $(build_env $b) $PY bench/decode.py --dtype bfloat16 --steps 8 --shape 32x100000:2048 --shape 48x49152:2048 --shape 1x100000:2048 --shape 8x163840:512 --out $W/decode_$b.json
done
OUT=$W step split_h4 120 env $(build_env h4) $PY bench/split_rows.py --out $W/split_h4 --grid indexer,sampler,vector-k --dtype bf16 --reps 15
L=$W/peers; mkdir -p $L
BUILD_ONLY=1 BUILD_DIR=/tmp/peers OUT_DIR=$L/build OUT=$W step peers_build 240 bash bench/peers/run.sh
for g in indexer sampler vector_k; do
  OUT_DIR=$L/bf16_$g BUILD_DIR=/tmp/peers OUT=$W step peers_bf16_$g 90 bash bench/peers/run.sh --reps 20 --dtype bf16 --shapes bench/peers/$g.txt
done
cat $L/bf16_*/*.jsonl > $W/peers_bf16.jsonl 2>/dev/null
cp $OUT/device.txt $W/
tar czf $OUT/c.tgz -C $W .
cat $W/steps.txt
