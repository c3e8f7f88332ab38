#!/usr/bin/env bash
# Call D: ragged twin units (ragged2 build in devbin/new) — GPU tests of the ragged path and
# the plain kernels' A/B against the previous build (devbin/old, same plain kernels expected).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
out=$OUT; mkdir -p $out
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $out/device.txt
export RTOPK_CUDA_PTX_CACHE=/tmp/rtopk-cache-new
s=$SECONDS; timeout 200 devbin/new/tests/gpu_ragged --ignored --test-threads 1 > $out/gpu_ragged.txt 2>&1; echo "== gpu_ragged rc=$? $((SECONDS-s)) s"; grep -E "test |result" $out/gpu_ragged.txt | tail -6
for g in rtopk regimes; do
  args=$([ $g = rtopk ] && echo "--grid rtopk" || echo "--grid split,vector,wide --reps 15")
  for b in old new; do
    exe=$([ $b = old ] && echo devbin/old/rtopk || echo devbin/new/rtopk)
    export RTOPK_CUDA_PTX_CACHE=/tmp/rtopk-cache-$b
    s=$SECONDS; timeout 150 $exe bench cuda $args --json > $out/${g}_$b.json 2> $out/${g}_$b.log; echo "== ${g}_$b rc=$? $((SECONDS-s)) s"
  done
  python3 bench/ab_compare.py $out/${g}_old.json $out/${g}_new.json --exact-only > $out/${g}_ab.md 2>&1; echo "ab rc=$?"; tail -n 6 $out/${g}_ab.md
done
