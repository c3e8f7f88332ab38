#!/usr/bin/env bash
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
out=$OUT; mkdir -p $out/r
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $out/r/device.txt
date -u +%Y-%m-%dT%H:%MZ | tee -a $out/r/device.txt
python3 -m pip install -q --no-deps --target /tmp/site devbin/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site
s=$SECONDS
devbin/rtopk bench cuda --grid split,vector,wide --reps 15 --json > $out/r/regimes_auto.json 2> $out/r/regimes_auto.log; echo "regimes auto rc=$? $((SECONDS-s)) s"
tail -2 $out/r/regimes_auto.log
s=$SECONDS
python3 bench/split_rows.py --out $out/r/torch --reps 15 > $out/r/split_rows.txt 2>&1; echo "split_rows rc=$? $((SECONDS-s)) s"
tail -6 $out/r/split_rows.txt
for tool in memcheck racecheck synccheck initcheck; do
  s=$SECONDS
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 python3 bench/sanitize_split.py > $out/r/sanitizer_$tool.txt 2>&1
  echo "sanitizer $tool rc=$? $((SECONDS-s)) s"; tail -2 $out/r/sanitizer_$tool.txt
done
cd $out && tar czf r.tgz r && rm -rf r
