#!/usr/bin/env bash
# call h (from the repository root on the device): with short rows faster, where the radix
# select now stands at k = 512 and 1024 on few rows: the committed CLI (devbin/e), each shape
# by the default (a split or cluster rows below k = 2048) and forced onto the radix select
# (--strategy radix), alternated twice; median of 20, normal values.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/lh; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
B=devbin/e/rtopk; chmod +x $B
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for rep in 1 2; do for st in auto radix; do
  out=""
  for nmk in 1:1048576:1024 1:2097152:512 1:2097152:1024 1:4194304:512 1:4194304:1024 2:2097152:1024 8:2097152:1024 1:33554432:1024 1:268435456:1024 16:2097152:2048 32:2097152:2048; do
    IFS=: read n m k <<< "$nmk"
    timeout 60 $B bench cuda --strategy $st --n $n --m $m -k $k --reps 20 --json > $L/t_${st}_${n}_${m}_${k}_$rep.json 2>> $L/t.err
    out="$out $(python3 -c "import json;c=json.load(open('$L/t_${st}_${n}_${m}_${k}_$rep.json'))[0];print(f\"{c['n']}x{c['m']}:{c['k']}={c['median_ms']*1000:.2f}\")" 2>&1)"
  done
  echo "== $rep $st:$out" >> $S
done; done
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
