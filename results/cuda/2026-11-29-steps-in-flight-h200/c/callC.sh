#!/usr/bin/env bash
# Call C (1 x H200): the steps build's wheel with int64 device lengths and k clamped as before
# (call B's one-launch clamp was refused by torch: a unary op's out= must have its dtype) —
# the eager host time per call of HEAD's wheel and this one alternated, then the Python
# suites on CUDA tensors after `rtopk.cuda prepare`.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx PYTHONUNBUFFERED=1
o=/tmp/o; mkdir -p $o
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "head $(cat devbin/head/COMMIT)"; echo "steps $(cat devbin/steps/COMMIT); wheel of 14:47Z"; } | tee $o/device.txt
step() { local name=$1; shift; local s=$SECONDS; "$@"; echo "== $name rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt; }
python3 -m pip install -q --no-deps --target /tmp/head devbin/head/rtopk-*.whl > /dev/null 2>&1
python3 -m pip install -q --no-deps --target /tmp/steps devbin/steps/rtopk-*.whl > /dev/null 2>&1
step prepare bash -c "PYTHONPATH=/tmp/steps timeout 150 python3 -m rtopk.cuda prepare > $o/prepare.txt 2>&1"
tail -1 $o/prepare.txt
for r in 1 2; do for b in head steps; do
  step eager_${b}_$r bash -c "PYTHONPATH=/tmp/$b timeout 60 python3 bench/eager_overhead.py --json $o/eager_${b}_$r.json > $o/eager_${b}_$r.txt 2>&1"
done; done
python3 - $o <<'PY'
import json, sys
o = sys.argv[1]
for r in (1, 2):
    for b in ("head", "steps"):
        for row in json.load(open(f"{o}/eager_{b}_{r}.json"))["rows"]:
            print(r, b, row["n"], row["m"], row["k"], row["dtype"], "torch", row["torch.topk"], "rtopk", row["rtopk.topk"], "torch unsorted", row["torch.topk sorted=False"], "rtopk unsorted", row.get("rtopk.topk sorted=False"))
PY
cd crates/rtopk-py
step pytest_a bash -c "PYTHONPATH=/tmp/steps timeout 200 python3 -m pytest tests/test_ragged.py tests/test_torch_cuda.py tests/test_torch_topk_parity.py -x -q -p no:cacheprovider -rs --tb=short > $o/pytest_a.txt 2>&1"
tail -6 $o/pytest_a.txt
step pytest_b bash -c "PYTHONPATH=/tmp/steps timeout 200 python3 -m pytest tests/test_jax.py tests/test_dtypes16.py tests/test_recall.py tests/test_grouped.py -x -q -p no:cacheprovider -rs --tb=short > $o/pytest_b.txt 2>&1"
tail -6 $o/pytest_b.txt
cd ../..
tar czf $OUT/logs.tgz -C $o .
cp $o/steps.txt $o/device.txt $OUT/
