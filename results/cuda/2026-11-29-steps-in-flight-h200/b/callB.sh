#!/usr/bin/env bash
# Call B (1 x H200): the steps build's wheel (devbin/steps, int64 device lengths and k now
# clamped in one launch) — the Python suites on CUDA tensors (ragged, torch, parity with
# torch.topk, JAX's CUDA target, 16-bit, recall, grouped) after `rtopk.cuda prepare`, and the
# eager host time per call of HEAD's wheel and this one in the same call.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx PYTHONUNBUFFERED=1
o=/tmp/o; mkdir -p $o
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "head $(cat devbin/head/COMMIT)"; echo "steps $(cat devbin/steps/COMMIT), wheel rebuilt with the int64 one-launch clamp"; } | tee $o/device.txt
step() { local name=$1; shift; local s=$SECONDS; "$@"; echo "== $name rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt; }
python3 -m pip install -q --no-deps --target /tmp/head devbin/head/rtopk-*.whl > /dev/null 2>&1
python3 -m pip install -q --no-deps --target /tmp/steps devbin/steps/rtopk-*.whl > /dev/null 2>&1
step prepare bash -c "PYTHONPATH=/tmp/steps timeout 150 python3 -m rtopk.cuda prepare > $o/prepare.txt 2>&1"
tail -2 $o/prepare.txt
step pytest bash -c "cd crates/rtopk-py && PYTHONPATH=/tmp/steps timeout 330 python3 -m pytest tests/test_ragged.py tests/test_torch_cuda.py tests/test_torch_topk_parity.py tests/test_jax.py tests/test_dtypes16.py tests/test_recall.py tests/test_grouped.py -q -p no:cacheprovider -rs > $o/pytest.txt 2>&1"
tail -12 $o/pytest.txt
for b in head steps; do
  step eager_$b bash -c "PYTHONPATH=/tmp/$b timeout 90 python3 bench/eager_overhead.py --json $o/eager_$b.json > $o/eager_$b.txt 2>&1"
done
cat $o/eager_head.txt $o/eager_steps.txt | cut -c1-400
tar czf $OUT/logs.tgz -C $o .
cp $o/steps.txt $o/device.txt $OUT/
