#!/usr/bin/env bash
# Call H (2 x H200): the final tree — rtopk.distributed's merge through one function (the tree's
# distributed.py over 8d8b379's wheel): every distributed test; then the final build's verify
# (GPU 1) beside the decode benchmark, exact against torch.topk and timed against it (GPU 0).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
T0=$SECONDS
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "build $(cat devbin/h8/COMMIT), rtopk/distributed.py of the tree"; } > $o/device.txt
cat $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/site devbin/h8/rtopk-*.whl 2>&1 | tail -2
cp crates/rtopk-py/python/rtopk/distributed.py /tmp/site/rtopk/distributed.py
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx NCCL_NVLS_ENABLE=0
step() { local name=$1; shift; local s=$SECONDS; "$@"; echo "== $name rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt; }
step pytest_distributed bash -c "cd crates/rtopk-py && timeout 170 python3 -m pytest tests/test_distributed.py -q -rs -p no:cacheprovider > $o/pytest_distributed.txt 2>&1"
tail -3 $o/pytest_distributed.txt
( CUDA_VISIBLE_DEVICES=1 timeout 150 devbin/h8/rtopk verify cuda --quick --dtype float32 > $o/verify_f32.txt 2>&1; echo "== verify_f32 rc=$?" >> $o/steps.txt ) &
step decode bash -c "CUDA_VISIBLE_DEVICES=0 timeout 120 python3 bench/decode.py --out $o/decode.json > $o/decode.txt 2>&1"
wait
head -1 $o/verify_f32.txt
grep -v Warn $o/decode.txt | head -14
echo "total $((SECONDS - T0)) s" | tee -a $o/steps.txt
cp $o/* $OUT/
