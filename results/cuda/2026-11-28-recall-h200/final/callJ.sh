#!/usr/bin/env bash
# Call J (final build): recall with the RECALL template flag (GPU tests, the RTop-K grid at
# r = 0.95 beside exact), the Python recall tests on CUDA tensors, and vectors with k past
# 16384 on the new chunk widths (checked against torch.topk, then timed).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
T0=$SECONDS
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $o/device.txt
N=devbin/new
python3 -m pip install -q --no-deps --target /tmp/site $N/rtopk-*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
s=$SECONDS; timeout 120 $N/tests/gpu --ignored --test-threads 1 every_strategy sixteen_bit_rows 2>&1 | grep -E "^test |test result|panicked|assert" > $o/gpu_tests.txt; echo "== gpu rc=${PIPESTATUS[0]} $((SECONDS-s)) s" | tee -a $o/steps.txt
s=$SECONDS; timeout 60 $N/rtopk bench cuda --grid rtopk --recall 0.95 --json > $o/rtopk_recall.json 2> $o/rtopk_recall.log; echo "== grid recall rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt
s=$SECONDS; (cd crates/rtopk-py && timeout 60 python3 -m pytest tests/test_recall.py -q -rs -p no:cacheprovider) > $o/pytest_recall.txt 2>&1; echo "== pytest recall rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt
s=$SECONDS; timeout 40 python3 - > $o/vector_check.txt 2>&1 <<'PY'
import torch, rtopk
for m, k in [(1 << 22, 32768), (1 << 25, 32768), (1 << 22, 8192)]:
    x = torch.randn(1, m, device="cuda")
    got = rtopk.topk(x, k, sorted=False)
    want = torch.topk(x, k, dim=1, sorted=True).values
    same = torch.equal(torch.sort(got.values, dim=1, descending=True).values, want)
    idx_ok = torch.equal(torch.gather(x, 1, got.indices.long()), got.values)
    print(f"1 x {m} k={k}: values {'ok' if same else 'DIFFER'}, indices {'ok' if idx_ok else 'WRONG'}")
PY
echo "== vector check rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt; cat $o/vector_check.txt
for m in 4194304 33554432; do
  s=$SECONDS; timeout 30 $N/rtopk bench cuda --n 1 --m $m -k 256,2048,8192,32768 --reps 15 --json > $o/vector_$m.json 2>> $o/vector.log; echo "== vector $m rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt
done
echo "total $((SECONDS - T0)) s" | tee -a $o/steps.txt
tar czf $OUT/call_j.tgz -C $o .
