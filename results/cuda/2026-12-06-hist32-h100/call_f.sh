#!/usr/bin/env bash
# Call f: issue 32's grids with the commit's build (bins11: the rtopk binary, f32; c11: the
# wheel, bf16) beside FlashInfer and CUB (bench/peers, built here), all in one call;
# table.md = large_k_table.py over the three.
set -uo pipefail
source bench/device_call.sh
wheel c11; bins 11
tar xJf devbin/vendor.tar.xz -C bench/peers
L=/tmp/logs; mkdir -p $L
BUILD_ONLY=1 BUILD_DIR=/tmp/peers OUT_DIR=$L/build step peers_build 240 bash bench/peers/run.sh
for d in f32 bf16; do
  for g in indexer sampler vector_k; do
    OUT_DIR=$L/peers_${d}_$g BUILD_DIR=/tmp/peers step peers_${d}_$g 60 bash bench/peers/run.sh --reps 20 --dtype $d --shapes bench/peers/$g.txt
  done
done
cat $L/peers_*/*.jsonl > $OUT/peers.jsonl 2>/dev/null
step rtopk_large_k 200 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_11 /tmp/bins11/rtopk bench cuda --grid large-k --reps 20 --json
grep -v '^\s*$' $OUT/rtopk_large_k.txt | sed -n '/^\[/,$p' > $OUT/rtopk_large_k.json
step split_bf16 120 env $(build_env c11) $PY bench/split_rows.py --out $OUT/split_bf16 --grid indexer,sampler,vector-k --dtype bf16 --reps 15
$PY bench/large_k_table.py --rtopk $OUT/rtopk_large_k.json --split $OUT/split_bf16/*.json --peers $OUT/peers.jsonl > $OUT/table.md 2>&1
cp $OUT/rtopk_large_k.txt $OUT/split_bf16.txt $L/ 2>/dev/null
tar czf $OUT/logs.tgz -C $L . 2>/dev/null
rm -f $OUT/rtopk_large_k.txt $OUT/split_bf16.txt $OUT/peers_*.txt
cat $OUT/steps.txt; head -8 $OUT/table.md
