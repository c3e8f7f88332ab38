#!/usr/bin/env bash
# Call b (from the repository root on the device, $OUT its output folder): issue 32's grids in
# bf16 (bench/split_rows.py: rtopk and torch.topk) on the histogram search (h1), on h2 (h1
# with fewer, wider cluster blocks for 16-bit rows too) and on HEAD's kernels (s4); h2
# against h1 on the rows that rule would move, h2's answers against the CPU path; then
# FlashInfer and CUB (bench/peers, built here) on the same grids in bf16. h3: h1 with block rows
# of 16-bit keys searched by histograms too, against h1 on block-row shapes, and its answers.
set -uo pipefail
source bench/device_call.sh
R=results/cuda/2026-12-06-hist16-h100
W=/tmp/cb; mkdir -p $W
wheel h1; wheel s4; wheel h2; wheel h3
tar xJf devbin/vendor.tar.xz -C bench/peers
for b in h1 h2 h3 s4; do
  OUT=$W step split_$b 120 env $(build_env $b) $PY bench/split_rows.py --out $W/split_$b --grid indexer,sampler,vector-k --dtype bf16 --reps 15
done
FEW=20:49152,32:49152,48:49152,64:40000,20:81920,32:81920,20:100000,32:100000,48:65536,66:81920
i=0
for b in h2 h1 h2 h1; do
  i=$((i + 1))
  OUT=$W step few_${b}_$i 120 env $(build_env $b) $PY $R/hist16_check.py time $W/few_${b}_$i.jsonl 15 bf16,f16 --unsorted --shapes $FEW
done
BLK=256:16384,128:32000,96:16384,96:49152,32:100000,256:49152,8:500000,32:163840,64:65536
i=0
for b in h3 h1 h3 h1; do
  i=$((i + 1))
  OUT=$W step blk_${b}_$i 120 env $(build_env $b) $PY $R/hist16_check.py time $W/blk_${b}_$i.jsonl 15 bf16,f16 --unsorted --shapes $BLK
done
OUT=$W step check_h3 240 env $(build_env h3) $PY $R/hist16_check.py check $W/check_h3.jsonl --block
OUT=$W step check_h2 200 env $(build_env h2) $PY results/cuda/2026-12-06-h100-standing/clusters_check.py $W/check_h2.jsonl 3 bf16 --shapes 32:49152,48:65536,64:40000,20:100000 --ks 64,2048
L=$W/peers; mkdir -p $L
BUILD_ONLY=1 BUILD_DIR=/tmp/peers OUT_DIR=$L/build OUT=$W step peers_build 240 bash bench/peers/run.sh
for g in indexer sampler vector_k; do
  OUT_DIR=$L/bf16_$g BUILD_DIR=/tmp/peers OUT=$W step peers_bf16_$g 90 bash bench/peers/run.sh --reps 20 --dtype bf16 --shapes bench/peers/$g.txt
done
cat $L/bf16_*/*.jsonl > $W/peers_bf16.jsonl 2>/dev/null
cp $OUT/device.txt $W/
tar czf $OUT/b.tgz -C $W .
cat $W/steps.txt
