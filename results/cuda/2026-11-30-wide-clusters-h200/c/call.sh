#!/usr/bin/env bash
# call c (from the repository root on the device): the committed build (devbin/w1: the rtopk
# binary, rtopk-cuda's `gpu` test binary and the wheel, with the shipped sm_90 units) against
# the build before it (its native module, devbin/p7so, from fe1c18f's wheel devbin/p7: 3947940's
# plan; the kernels and shipped units of both are the same sources), in one call: the cluster GPU
# test, every select case of check.sh, bench/split_rows.py (rtopk and torch.topk) on the
# indexer and sampler grids in f32 and bf16, old and new, and bench/decode.py on wide rows.
set -uo pipefail
R=results/cuda/2026-11-30-wide-clusters-h200
S=$OUT/steps.txt; L=/tmp/lc; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/w1/rtopk devbin/w1/gpu
pip install -q --no-deps --target /tmp/wn devbin/w1/*.whl >> $S 2>&1
pip install -q --no-deps --target /tmp/wo devbin/w1/*.whl >> $S 2>&1
xz -dc devbin/p7so/_native.abi3.so.xz > /tmp/wo/rtopk/_native.abi3.so
export RTOPK_CUDA_UNITS=/tmp/wn/rtopk/_units
s=$SECONDS; timeout 240 devbin/w1/gpu --ignored cluster > $L/gpu_cluster.txt 2>&1; echo "== gpu --ignored cluster rc=$? $((SECONDS-s)) s" >> $S
tail -4 $L/gpu_cluster.txt >> $S
python3 $R/gen.py /tmp/in
s=$SECONDS; bash $R/check.sh devbin/w1/rtopk $L > $L/check.txt 2>&1; echo "== check.sh rc=$? $((SECONDS-s)) s" >> $S; tail -2 $L/check.txt >> $S
for d in f32 bf16; do for b in wn wo; do
  s=$SECONDS; PYTHONPATH=/tmp/$b timeout 150 python3 bench/split_rows.py --out $L/split_${b}_$d --grid indexer,sampler --dtype $d --reps 20 > $L/split_${b}_$d.md 2>&1; echo "== split_rows $b $d rc=$? $((SECONDS-s)) s" >> $S
done; done
s=$SECONDS; PYTHONPATH=/tmp/wn timeout 120 python3 bench/decode.py --shape 1x262144:2048 --shape 4x500000:2048 --shape 8x200000:1024 --shape 1x163840:512 --out $L/decode.json > $L/decode.txt 2>&1; echo "== decode rc=$? $((SECONDS-s)) s" >> $S
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
