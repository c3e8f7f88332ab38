#!/usr/bin/env bash
# call f (one H200, from the repository root): compute-sanitizer's four tools on the floor's
# entry points (devbin/f1/rtopk, 828f3b7's CLI): one row of 2^25 + 5 (past FLOOR_MIN_ROW) at
# k = 64 (warp-row chunks of 2048) and k = 256, smallest, tied values (narrowing block-row
# chunks of 4096), through `rtopk bench cuda --reps 1`.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/lf; mkdir -p $o
nvidia-smi -L > $o/device.txt; date -u >> $o/device.txt
chmod +x devbin/f1/rtopk
devbin/f1/rtopk bench cuda --n 1 --m 33554437 -k 64,256 --reps 1 > $o/warm.txt 2>&1  # units into the cache
cases=("--n 1 --m 33554437 -k 64" "--n 1 --m 33554437 -k 256 --smallest --dist ties")
for tool in memcheck racecheck synccheck initcheck; do
  for c in "${cases[@]}"; do
    s=$SECONDS
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 devbin/f1/rtopk bench cuda $c --reps 1 > $o/san_${tool}_$(echo $c | tr -c 'a-z0-9' _).log 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $o/san_${tool}_$(echo $c | tr -c 'a-z0-9' _).log | tail -1)
    echo "$tool [$c] rc=$rc $((SECONDS-s)) s $summary" >> $OUT/steps.txt
  done
done
cp $o/device.txt $OUT/
tar czf $OUT/logs.tgz -C $o .
