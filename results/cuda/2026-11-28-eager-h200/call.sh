#!/usr/bin/env bash
# Call F: eager host time per call — the main build's wheel (devbin/*.whl) and the eager
# branch's (devbin/eager/*.whl) — and the torch tests of the eager branch.
set -uo pipefail
out=$OUT; mkdir -p $out
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $out/device.txt
python3 -m pip install -q --no-deps --target /tmp/site_old devbin/rtopk-*.whl 2>&1 | tail -2
python3 -m pip install -q --no-deps --target /tmp/site_new devbin/eager/rtopk-*.whl 2>&1 | tail -2
PYTHONPATH=/tmp/site_new python3 -c "import rtopk.cuda as c; print(c.prepare())" 2>&1 | tail -1
for b in old new; do
  PYTHONPATH=/tmp/site_$b python3 bench/eager_overhead.py --json $out/eager_$b.json > $out/eager_$b.txt 2>&1; echo "== $b rc=$?"
  python3 - $out/eager_$b.json <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["rows"]:
    c = r["components"]
    print(r["n"], r["m"], r["k"], r["dtype"], "torch", r["torch.topk"], "rtopk", r["rtopk.topk"], "launch", c.get("native launch (outputs given)"), "impl", c.get("ops.cuda_impl"))
PY
done
cd devbin/eager && PYTHONPATH=/tmp/site_new timeout 250 python3 -m pytest tests/test_torch_cuda.py tests/test_torch_cpu.py tests/test_torch_topk_parity.py -q -x -p no:cacheprovider > $out/pytest.txt 2>&1; echo "== pytest rc=$?"; tail -3 $out/pytest.txt
