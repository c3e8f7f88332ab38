#!/usr/bin/env bash
# call c (from the repository root on the device): the peers (FlashInfer 0.7.2.post1, CUB 3.6
# DeviceTopK / DeviceBatchedTopK; bench/peers, built here with nvcc) beside rtopk on the
# indexer and sampler grids, the cluster-row build (devbin/c3 = devbin/b's) and HEAD's
# (devbin/h), in one call.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
S=$OUT/steps.txt; L=/tmp/lc; mkdir -p $L
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; (nvcc --version | tail -2) >> $OUT/device.txt
tar xJf devbin/c3/vendor.tar.xz -C bench/peers
python3 -m pip install -q --no-deps --target /tmp/wc devbin/c3/whl/rtopk-0.1.0-cp39-abi3-manylinux_2_34_x86_64.whl >> $S 2>&1
export PYTHONPATH=/tmp/wc RTOPK_CUDA_PTX_CACHE=/tmp/ptxc
chmod +x devbin/c3/rtopk devbin/h/rtopk
s=$SECONDS; BUILD_ONLY=1 BUILD_DIR=/tmp/peers OUT_DIR=$L/build timeout 300 bash bench/peers/run.sh > $L/build.txt 2>&1; echo "== peers build rc=$? $((SECONDS-s)) s" >> $S
for g in indexer sampler; do
  s=$SECONDS; OUT_DIR=$L/peers_f32_$g BUILD_DIR=/tmp/peers timeout 60 bash bench/peers/run.sh --reps 20 --shapes bench/peers/$g.txt > /dev/null 2> $L/peers_f32_$g.log; echo "== peers f32 $g rc=$? $((SECONDS-s)) s" >> $S
done
s=$SECONDS; OUT_DIR=$L/peers_bf16_indexer BUILD_DIR=/tmp/peers timeout 60 bash bench/peers/run.sh --reps 20 --dtype bf16 --shapes bench/peers/indexer.txt > /dev/null 2> $L/peers_bf16.log; echo "== peers bf16 indexer rc=$? $((SECONDS-s)) s" >> $S
s=$SECONDS; timeout 60 devbin/c3/rtopk bench cuda --grid indexer,sampler --reps 20 --json > $L/rtopk_new.json 2> $L/rtopk_new.log; echo "== rtopk new rc=$? $((SECONDS-s)) s" >> $S
s=$SECONDS; timeout 60 devbin/h/rtopk bench cuda --grid indexer,sampler --reps 20 --json > $L/rtopk_head.json 2> $L/rtopk_head.log; echo "== rtopk head rc=$? $((SECONDS-s)) s" >> $S
for d in bf16 f32; do
  s=$SECONDS; timeout 90 python3 bench/split_rows.py --out $L/split_$d --grid indexer --dtype $d --reps 15 > $L/split_rows_$d.txt 2>&1; echo "== split_rows $d rc=$? $((SECONDS-s)) s" >> $S
done
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
