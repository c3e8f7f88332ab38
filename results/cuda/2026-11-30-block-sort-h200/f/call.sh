#!/usr/bin/env bash
# call f (from the repository root on the device): 784e5e0's wheel (devbin/w3, its sm_90 units):
# sorted calls of k past 1024 against torch.topk's, checked, in one call.
pip install -q --no-deps --target /tmp/wn devbin/w3/*.whl > /dev/null 2>&1
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt
PYTHONPATH=/tmp/wn timeout 120 python3 results/cuda/2026-11-30-block-sort-h200/f/torch_sorted.py $OUT/torch_sorted.json > $OUT/torch_sorted.txt 2>&1; echo "rc=$?" >> $OUT/torch_sorted.txt
cat $OUT/torch_sorted.txt
