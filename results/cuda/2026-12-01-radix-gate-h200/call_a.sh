#!/usr/bin/env bash
# call a (from the repository root on the device): where the radix select beats the default
# below the default's gate, on f32 rows: the committed CLI (devbin/i), each shape by the
# default and forced onto the radix select (--strategy radix), k = 128..8192 in one process;
# median of 20, normal values (drawn on the device, rotated past L2).
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/la; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
B=devbin/i/rtopk; chmod +x $B
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
K=128,256,512,1024,2048,4096,8192
start=$SECONDS
for lm in 19 20 21 22 23 24 25 26; do for ln in 0 1 2 3 4 5 6 7; do
  [ $((lm + ln)) -le 27 ] || continue
  n=$((1 << ln)); m=$((1 << lm))
  for st in auto radix; do
    f=$L/t_${st}_${n}_${m}.json
    timeout 60 $B bench cuda --strategy $st --n $n --m $m -k $K --reps 20 --json > $f 2>> $L/t.err
    python3 - "$f" "$st" >> $S <<'PY'
import json, sys
try:
    cs = json.load(open(sys.argv[1]))
    print(sys.argv[2], " ".join(f"{c['n']}x{c['m']}:{c['k']}={c['median_ms']*1000:.2f}" for c in cs), flush=True)
except Exception as e:
    print(sys.argv[2], sys.argv[1], "FAILED", e)
PY
  done
  echo "t=$((SECONDS - start))" >> $S
  [ $((SECONDS - start)) -lt 500 ] || break 2
done; done
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
