#!/usr/bin/env bash
# call i (from the repository root on the device): the package's CUDA tests on the committed
# tree's wheel (devbin/wb, 14e84c3: the 16-byte loads of call g), and the radix select through
# it on CUDA tensors against torch.topk (radix_py.py of the radix record).
set -uo pipefail
P=results/cuda/2026-11-30-radix-rows-h200
S=$OUT/steps.txt; L=/tmp/li; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
python3 -m pip install -q --no-deps --target /tmp/site devbin/wb/rtopk-*.whl > $L/pip.txt 2>&1
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
s=$SECONDS; timeout 30 python3 $P/radix_py.py $L/radix_py.json > $L/radix_py.txt 2>&1; echo "== radix_py rc=$? $((SECONDS-s)) s" >> $S; tail -1 $L/radix_py.txt >> $S
s=$SECONDS; (cd crates/rtopk-py && timeout 175 python3 -m pytest -q -rs -p no:cacheprovider tests -k "cuda and not verify_quick" > $L/pytest_cuda.txt 2>&1); echo "== pytest cuda rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/pytest_cuda.txt >> $S
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
