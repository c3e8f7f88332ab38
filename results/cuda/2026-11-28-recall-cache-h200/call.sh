#!/usr/bin/env bash
# Call K: (1) where the narrowed block rows lose recall on the GPU (old wheel 730bfc1, which
# still narrows block rows at a recall target); (2) eager host time baseline; (3) the
# distributed bench of main on 2 GPUs (before).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
T0=$SECONDS
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/site devbin/new/rtopk-*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
s=$SECONDS; (cd crates/rtopk-py/tests && timeout 150 python3 - ) > $o/recall_debug.txt 2>&1 <<'PY'
import numpy as np, torch, rtopk, math
from test_recall import rows
from oracle import canonical_rows
x = rows(4, 5000, 11)
try:
    print(rtopk.plan(12, 5000, 100, sorted=False))
except Exception as e:
    print("plan:", e)
for r in (0.5, 0.8, 0.9):
    for k in (100,):
        _, ex = canonical_rows(x, k, True)
        g = rtopk.topk(torch.from_numpy(x).cuda(), k, sorted=False, recall=r, return_iterations=True)
        c = rtopk.topk(x, k, sorted=False, recall=r, return_iterations=True)
        gi = g.indices.cpu().numpy(); it = g.iterations.cpu().numpy()
        print(f"r={r} k={k} gpu iters {it.tolist()} cpu iters {c.iterations.tolist()}")
        for row in range(x.shape[0]):
            hg = len(set(gi[row].tolist()) & set(ex[row].tolist()))
            hc = len(set(c.indices[row].tolist()) & set(ex[row].tolist()))
            if hg != hc or not np.array_equal(np.sort(gi[row]), np.sort(c.indices[row])):
                extra = sorted(set(gi[row].tolist()) - set(c.indices[row].tolist()))
                miss = sorted(set(c.indices[row].tolist()) - set(gi[row].tolist()))
                print(f"  row {row}: hits gpu {hg} cpu {hc}; gpu-only {len(extra)} cpu-only {len(miss)}")
                xs = x[row]
                print("   gpu-only vals", np.sort(xs[extra])[::-1][:12].tolist())
                print("   cpu-only vals", np.sort(xs[miss])[::-1][:12].tolist())
                print("   gpu-only idx", extra[:20], " cpu-only idx", miss[:20])
                print("   gpu order of indices (first 40)", gi[row][:40].tolist())
                print("   kth exact", float(np.sort(xs)[::-1][k-1]))
# many shapes in the narrowing range
bad = 0; tot = 0
for m in (3073, 4000, 5000, 8192):
    for k in (20, 100, 300, 511):
        for r in (0.5, 0.8, 0.95):
            xm = np.random.default_rng(m + k).standard_normal((8, m)).astype(np.float32)
            g = rtopk.topk(torch.from_numpy(xm).cuda(), k, sorted=False, recall=r, return_iterations=True)
            c = rtopk.topk(xm, k, sorted=False, recall=r, return_iterations=True)
            same = np.array_equal(g.indices.cpu().numpy(), c.indices) and np.array_equal(g.iterations.cpu().numpy(), c.iterations)
            tot += 1
            if not same:
                bad += 1; print(f"DIFF m={m} k={k} r={r} gpu it {g.iterations.cpu().tolist()} cpu it {c.iterations.tolist()}")
print(f"{bad} of {tot} differ")
PY
echo "== recall debug rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt
s=$SECONDS; timeout 120 python3 bench/eager_overhead.py --calls 3000 --json $o/eager.json > $o/eager.txt 2>&1; echo "== eager rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt
s=$SECONDS; NCCL_NVLS_ENABLE=0 timeout 200 torchrun --standalone --nproc-per-node 2 bench/distributed_topk.py --out $o/distributed_2.json > $o/distributed_2.txt 2>&1; echo "== dist2 rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt
s=$SECONDS; NCCL_NVLS_ENABLE=0 timeout 120 torchrun --standalone --nproc-per-node 1 bench/distributed_topk.py --out $o/distributed_1.json > $o/distributed_1.txt 2>&1; echo "== dist1 rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt
echo "total $((SECONDS - T0)) s" | tee -a $o/steps.txt
tar czf $OUT/call_k.tgz -C $o .
