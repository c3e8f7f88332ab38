#!/usr/bin/env bash
# Call f: the package against the CLI on the same shapes (package_vs_cli.py: the live plan and
# the h100 preset's, rtopk.topk unsorted and sorted; `rtopk bench cuda` of bins18), c18.
set -uo pipefail
source bench/device_call.sh
wheel c18; bins 18
SH="17:100000:2048 1:100000:1024 1:65536:512 32:100000:2048 1:32000:1024"
step package 200 env $(build_env c18) $PY results/cuda/2026-12-06-cluster-span-h100/package_vs_cli.py $SH
for s in $SH; do
  IFS=: read n m k <<< "$s"
  env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_18 /tmp/bins18/rtopk bench cuda --n $n --m $m -k $k --reps 30 --json 2>/dev/null \
    | $PY -c "import json,sys; s=sys.stdin.read(); d=json.loads(s[s.index('['):]); print($n, $m, ' '.join(f\"{r['k']}{'s' if r['sorted'] else ''}:{r['median_ms']*1000:.1f}\" for r in d))" >> $OUT/cli.txt
done
cat $OUT/steps.txt; cat $OUT/package.txt $OUT/cli.txt
