#!/usr/bin/env bash
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
out=$OUT; mkdir -p $out
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $out/device.txt
date -u +%Y-%m-%dT%H:%MZ | tee -a $out/device.txt
python3 -m pip install -q --no-deps --target /tmp/site devbin/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site
python3 - <<'PY' 2>&1 | tee $out/split_check.txt
import torch, rtopk, numpy as np
rng = np.random.default_rng(5)
def hostile(n, m, fam):
    if fam == "ties": return rng.integers(-2, 4, size=(n, m)).astype(np.float32)
    x = rng.standard_normal((n, m)).astype(np.float32)
    if fam == "nan":
        mask = rng.random((n, m))
        x[mask < 0.01] = np.nan; x[(mask > 0.01) & (mask < 0.02)] = np.inf
        x[(mask > 0.02) & (mask < 0.03)] = -np.inf; x[(mask > 0.03) & (mask < 0.04)] = -0.0
        b = x.view(np.uint32); b[(mask > 0.04) & (mask < 0.045)] = 0xffc01234
    return x
bad = 0; total = 0
for (n, m, k) in [(1,10000,1),(3,10000,100),(2,8200,200),(1,65536,256),(4,65536,7),(5,9000,300),(2,100000,1000),(1,131071,50),(1,1<<20,256),(16,40000,512),(3,1<<22,1024),(1,1<<24,16384)]:
    for fam in ["normal","ties","nan"]:
        for largest in [True, False]:
            for srt in [False, True]:
                x = hostile(n, m, fam)
                g = rtopk.topk(torch.from_numpy(x).cuda(), k, largest=largest, sorted=srt)
                c = rtopk.topk(torch.from_numpy(x), k, largest=largest, sorted=srt, algo="bisect")
                gi = g.indices.cpu().numpy(); ci = c.indices.numpy()
                gv = g.values.cpu().numpy().view(np.uint32); cv = c.values.numpy().view(np.uint32)
                if not srt:
                    # canonical set; index order within a row
                    ok = np.array_equal(np.sort(gi, 1), np.sort(ci, 1))
                else:
                    ok = np.array_equal(gi, ci) and np.array_equal(gv, cv)
                total += 1
                if not ok:
                    bad += 1; print("MISMATCH", n, m, k, fam, largest, srt)
print(f"split check: {total} cases, {bad} mismatches")
PY
python3 bench/split_rows.py --out $out/split --reps 15 2>&1 | tee $out/split_rows.txt | tail -130
for b in old new; do
  exe=$([ $b = old ] && echo devbin/rtopk_old || echo devbin/rtopk)
  start=$SECONDS
  $exe bench cuda --grid rtopk --json > $out/grid_$b.json 2> $out/grid_$b.log || echo "grid $b FAILED"
  echo "grid $b $((SECONDS - start)) s"
done
python3 bench/ab_compare.py $out/grid_old.json $out/grid_new.json --exact-only --record results/cuda/2026-11-21-bench-vs-torch-h100/rtopk_cuda.json > $out/grid_ab.txt 2>&1; tail -8 $out/grid_ab.txt
cd $out && tar czf logs.tgz *.txt *.json split grid_*.log 2>/dev/null; ls
