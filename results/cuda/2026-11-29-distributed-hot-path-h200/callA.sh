#!/usr/bin/env bash
# Call A (2 x H200): the hot path of rtopk.distributed (tests, host time, profile, benchmark),
# then one-GPU checks of 9ee487a (verify bf16 / f64, gpu_ragged) and 16-bit block rows A/B.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
T0=$SECONDS
tar xJf devbin/pack/h5.tar.xz
N=devbin/h5
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvidia-smi topo -m | head -4; date -u +%Y-%m-%dT%H:%MZ; echo "build $(cat $N/COMMIT), rtopk/distributed.py of the tree"; python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())"; } > $o/device.txt 2>&1
cat $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/site $N/rtopk-*.whl 2>&1 | tail -2
python3 -m pip install -q --no-deps --target /tmp/old devbin/steps/rtopk-*.whl 2>&1 | tail -2
cp crates/rtopk-py/python/rtopk/distributed.py /tmp/site/rtopk/distributed.py
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx NCCL_NVLS_ENABLE=0
step() { local name=$1; shift; local s=$SECONDS; "$@"; echo "== $name rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt; }
# one-GPU checks on GPU 1 in the background (f64 verify, then gpu_ragged), after the 2-GPU work
step pytest_dist bash -c "cd crates/rtopk-py && timeout 150 python3 -m pytest tests/test_distributed.py -q -rs -p no:cacheprovider > $o/pytest_distributed.txt 2>&1"
tail -3 $o/pytest_distributed.txt
step host2 bash -c "timeout 150 torchrun --standalone --nproc-per-node 2 devbin/d36/dist_host2.py $o > $o/dist_host_2.txt 2>&1"
grep -v "^W11\|Warning\|warn\|return func" $o/dist_host_2.txt | head -80
step dist2 bash -c "timeout 230 torchrun --standalone --nproc-per-node 2 bench/distributed.py --max-seconds 170 --out $o/distributed_2.json > $o/distributed_2.txt 2>&1"
step table bash -c "python3 bench/distributed.py --table $o/distributed_2.json > $o/distributed_2.md 2>&1"
cut -c1-260 $o/distributed_2.md
( CUDA_VISIBLE_DEVICES=1 timeout 190 $N/rtopk verify cuda --quick --dtype float64 > $o/verify_f64.txt 2>&1; echo "== verify_f64 rc=$?" >> $o/steps.txt
  CUDA_VISIBLE_DEVICES=1 timeout 140 $N/gpu_ragged --ignored > $o/gpu_ragged.txt 2>&1; echo "== gpu_ragged rc=$?" >> $o/steps.txt ) &
step verify_bf16 bash -c "CUDA_VISIBLE_DEVICES=0 timeout 200 $N/rtopk verify cuda --quick --dtype bfloat16 > $o/verify_bf16.txt 2>&1"
tail -3 $o/verify_bf16.txt
step block16_new bash -c "CUDA_VISIBLE_DEVICES=0 timeout 60 python3 devbin/d36/block16.py > $o/block16_new.json 2> $o/block16_new.err"
step block16_old bash -c "CUDA_VISIBLE_DEVICES=0 PYTHONPATH=/tmp/old RTOPK_CUDA_PTX_CACHE=/tmp/ptxold timeout 90 python3 devbin/d36/block16.py > $o/block16_old.json 2> $o/block16_old.err"
wait
tail -3 $o/verify_f64.txt
tail -3 $o/gpu_ragged.txt
cat $o/block16_new.json $o/block16_old.json
echo "total $((SECONDS - T0)) s" | tee -a $o/steps.txt
gzip -f $o/trace_*.json 2>/dev/null
tar czf $OUT/call_a.tgz -C $o .
