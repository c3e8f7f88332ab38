#!/usr/bin/env bash
# Call B: the RTop-K grid and the split/vector/wide regimes, the build before this session's
# kernel changes (devbin/old) and this one, each grid in turn, in one call (bench/ab_compare.py);
# then the Python tests the merged build changed, with torch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
out=$OUT; mkdir -p $out
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $out/device.txt
python3 -m pip install -q --no-deps --target /tmp/site devbin/rtopk-*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site
(cd crates/rtopk-py && timeout 170 python3 -m pytest tests/test_ragged.py tests/test_torch_cpu.py tests/test_torch_cuda.py tests/test_torch_topk_parity.py -q -rs -p no:cacheprovider > $out/pytest_changed.txt 2>&1; echo "== pytest rc=$?"; tail -3 $out/pytest_changed.txt)
for g in rtopk regimes; do
  args=$([ $g = rtopk ] && echo "--grid rtopk" || echo "--grid split,vector,wide --reps 15")
  for b in old new; do
    exe=$([ $b = old ] && echo devbin/old/rtopk || echo devbin/rtopk)
    s=$SECONDS; timeout 150 $exe bench cuda $args --json > $out/${g}_$b.json 2> $out/${g}_$b.log; echo "== ${g}_$b rc=$? $((SECONDS-s)) s"
  done
  python3 bench/ab_compare.py $out/${g}_old.json $out/${g}_new.json --exact-only > $out/${g}_ab.md 2>&1; echo "ab rc=$?"; tail -n 6 $out/${g}_ab.md
done
