#!/usr/bin/env bash
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
python3 -m pip install -q --no-deps --target /tmp/site devbin/h5/rtopk-*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $o/device.txt; date -u +%Y-%m-%dT%H:%MZ >> $o/device.txt
timeout 300 python3 devbin/rg/ragged_prof.py $o/ragged_prof.json 2>&1 | grep -v Warning | tee $o/ragged_prof.txt
cp $o/* $OUT/
