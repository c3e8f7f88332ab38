#!/usr/bin/env bash
# Call d (2 x H200, from the repository root): devbin/r2 (the committed kernels and package).
# The package's CUDA-tensor and parity tests but the quick verifies (which call a and earlier
# sessions ran as `rtopk verify`), the cuda:1 test included; the distributed NCCL tests; and
# bench/distributed.py's split rows twice (issue 36: since 32a6729 a shard's last stage can be
# a cluster row; the last record is results/cuda/2026-11-29-distributed-hot-path-h200/c/).
set -uo pipefail
S=$OUT/steps.txt
L=$OUT/logs; mkdir -p $L
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())"; } > $L/device.txt 2>&1
python3 -m pip install -q --no-deps --target /tmp/w2 devbin/r2/rtopk-*.whl >> $S 2>&1
export PYTHONPATH=/tmp/w2 RTOPK_CUDA_PTX_CACHE=/tmp/ptx_r2 NCCL_NVLS_ENABLE=0
t() { local name=$1; shift; local s=$SECONDS; "$@" > $L/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s: $(grep -E 'passed|failed' $L/$name.txt | tail -1)" >> $S; }
t pytest_cuda timeout 200 python3 -m pytest crates/rtopk-py/tests/test_torch_cuda.py crates/rtopk-py/tests/test_torch_topk_parity.py -q -rs -p no:cacheprovider -k "not verify_quick" --durations 5
t pytest_nccl timeout 120 bash -c "cd crates/rtopk-py && python3 -m pytest tests/test_distributed.py -q -rs -p no:cacheprovider -k 'nccl or gpu'"
for run in 1 2; do
  s=$SECONDS; timeout 150 torchrun --standalone --nproc-per-node 2 bench/distributed.py --only split --max-seconds 120 --out $L/distributed_2_run$run.json > $L/distributed_2_run$run.txt 2>&1
  echo "== dist2_$run rc=$? $((SECONDS-s)) s" >> $S
  python3 bench/distributed.py --table $L/distributed_2_run$run.json > $L/distributed_2_run$run.md 2>&1
  cut -c1-250 $L/distributed_2_run$run.md >> $S
done
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
echo "== end" >> $S
