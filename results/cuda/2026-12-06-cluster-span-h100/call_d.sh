#!/usr/bin/env bash
# Call d: 16-bit cluster rows on other sizes, through the package (bf16): v3 (16-bit rows of
# 40000-131072 on wide clusters, unsorted) and v4 (16-bit rows of 24577-65535 on 8 blocks)
# against c18 (the commit's shapes, 16-bit rows unchanged), each in turn, twice;
# clusters_check.py checks every answer against the CPU path in the first round.
set -uo pipefail
source bench/device_call.sh
wheel c18; wheel v3; wheel v4
SH=1:32000,2:32000,8:32000,32:32000,1:40000,1:49152,2:49152,8:49152,1:65536,2:65536,8:65536,1:100000,2:100000,8:100000,1:131072,8:131072
for r in 1 2; do
  for w in c18 v3 v4; do
    C=$([ $r = 1 ] && [ $w != c18 ] && echo "" || echo --no-check)
    step check_${w}_r$r 200 env $(build_env $w) $PY results/cuda/2026-12-06-h100-standing/clusters_check.py $OUT/check_${w}_r$r.jsonl 20 bf16 $C --shapes $SH --ks 20,64,512,1024,2048
  done
done
for w in v3 v4; do
  $PY results/cuda/2026-12-06-cluster-span-h100/check_compare.py $OUT/check_c18_r1.jsonl $OUT/check_c18_r2.jsonl $OUT/check_${w}_r1.jsonl $OUT/check_${w}_r2.jsonl > $OUT/compare_$w.txt
done
cd $OUT && tar czf logs.tgz *.txt *.jsonl && find . -maxdepth 1 \( -name "check_*" \) -delete && cat steps.txt && tail -1 compare_*.txt
