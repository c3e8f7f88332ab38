#!/usr/bin/env bash
# Call Y (2 x H200): rtopk.distributed's replayed gather and merge (NCCL tests, the split-rows
# benchmark) and hints on split rows (GPU tests against the simulator, bench/decode.py).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
T0=$SECONDS
N=devbin/new2
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "build $(cat $N/COMMIT)"; python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())"; } | tee $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/site $N/rtopk-*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx NCCL_NVLS_ENABLE=0
step() { local name=$1; shift; local s=$SECONDS; "$@"; echo "== $name rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt; }
step pytest_nccl bash -c "cd crates/rtopk-py && timeout 150 python3 -m pytest tests/test_distributed.py -q -rs -p no:cacheprovider -k 'nccl or gpu' > $o/pytest_nccl.txt 2>&1"
tail -5 $o/pytest_nccl.txt
step dist2 bash -c "timeout 300 torchrun --standalone --nproc-per-node 2 bench/distributed.py --only split --max-seconds 240 --out $o/distributed_2.json > $o/distributed_2.txt 2>&1"
step table bash -c "python3 bench/distributed.py --table $o/distributed_2.json > $o/distributed_2.md 2>&1"
cat $o/distributed_2.md | cut -c1-200
step gpu_ragged bash -c "CUDA_VISIBLE_DEVICES=0 timeout 240 $N/tests/gpu_ragged --ignored --test-threads 2 hinted_split split_ragged > $o/gpu_ragged.txt 2>&1"
tail -8 $o/gpu_ragged.txt
step decode bash -c "CUDA_VISIBLE_DEVICES=0 timeout 200 python3 bench/decode.py --shape 1x1048576:2048 --shape 8x131072:2048 --shape 64x32768:2048 --shape 64x32768:512 --shape 64x128256:50 --shape 1x163840:2048 --steps 16 --no-lengths --out $o/decode.json > $o/decode.txt 2>&1"
cat $o/decode.txt | head -20
echo "total $((SECONDS - T0)) s" | tee -a $o/steps.txt
tar czf $OUT/call_y.tgz -C $o .
