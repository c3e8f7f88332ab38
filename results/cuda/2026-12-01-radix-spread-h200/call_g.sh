#!/usr/bin/env bash
# call g (from the repository root on the device): the committed wheel (devbin/we) on the
# radix gate's shapes in f32, f16 and bf16 through the package (gate16.py of the listed-write
# record: torch.topk on the same tensors in the same run, every case checked first), to set
# beside that record's e/gate16_wd.txt (3d8c462's wheel, the radix kernels and plan of
# 9e848fa, another call).
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/lg; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
python3 -m pip install -q --no-deps --target /tmp/site devbin/we/rtopk-*.whl > $L/pip.txt 2>&1
s=$SECONDS; PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx timeout 200 python3 results/cuda/2026-12-01-radix-listed-write-h200/gate16.py $L/gate16_we.json > $L/gate16_we.txt 2>&1; echo "== gate16 rc=$? $((SECONDS-s)) s" >> $S
cat $L/gate16_we.txt | cut -c1-200 >> $S
cp $L/device.txt $L/gate16_we.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
