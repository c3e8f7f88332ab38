#!/usr/bin/env bash
# Call e: decode steps (bench/decode.py, 8 steps, 2 % drift) on shapes whose plain rows the
# commit moved (wide clusters, 8 blocks) while hinted rows keep their portable window search:
# c18 against c13, each in turn, twice.
set -uo pipefail
source bench/device_call.sh
wheel c13; wheel c18
S="--shape 1x100000:1024 --shape 2x100000:512 --shape 4x131072:1024 --shape 1x65536:512 --shape 2x32000:1024 --shape 16x32000:512"
for r in 1 2; do
  for w in c13 c18; do
    step decode_${w}_r$r 200 env $(build_env $w) $PY bench/decode.py $S --steps 8 --no-lengths --out $OUT/decode_${w}_r$r.json
  done
done
cd $OUT && tar czf logs.tgz decode_*.txt && cat steps.txt && cat decode_c18_r1.txt | tail -20
