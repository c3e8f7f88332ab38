#!/usr/bin/env bash
# 16-bit M = 768 on half-warp rows (48 elements in 24 registers per lane) against whole-warp rows
# (24 in 12): bench/dtypes16.py --quick with this commit's wheel (A) and a variant whose plan
# takes half-warp rows for 16-bit rows up to 768 (B), in one call.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
out=$OUT/r; mkdir -p $out
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $out/device.txt
for v in A B; do
  python3 -m pip install -q --no-deps --target /tmp/site_$v devbin/$v/rtopk-*.whl 2>&1 | tail -2
  PYTHONPATH=/tmp/site_$v timeout 150 python3 bench/dtypes16.py --out $out/dtypes16_$v --reps 15 --quick > $out/dtypes16_$v.txt 2>&1
  echo "== $v"; sed -n '/elements/,/^## torch/p' $out/dtypes16_$v/dtypes16.md | grep "^| [fb]"
  grep -E "^\| 1048576 \| 768 " $out/dtypes16_$v/dtypes16.md
done
cd $OUT && tar czf r.tgz r && rm -rf r
