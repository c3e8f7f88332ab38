#!/usr/bin/env bash
# call b (from the repository root on the device): the sample build (devbin/s1, its gpu test
# binary rebuilt for the sampled shapes) — check.sh (fixed: one command line a bisect case)
# against bisect, the radix GPU tests against bisect and the simulator, and the gate's data:
# every shape of 1-16 rows of 2^22-2^26 at k = 16..1024 forced onto the radix select and by
# the default route (gate.json: one line a run).
set -uo pipefail
R=results/cuda/2026-12-01-radix-sample-h200
S=$OUT/steps.txt; L=/tmp/lb; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/s1/*
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
s=$SECONDS; python3 $R/gen.py /tmp/in > $L/gen.txt 2>&1; echo "== gen rc=$? $((SECONDS-s)) s" >> $S
s=$SECONDS; timeout 200 bash $R/check.sh devbin/s1/rtopk $L > $L/check.txt 2>&1; echo "== check rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/check.txt >> $S
s=$SECONDS; timeout 150 devbin/s1/gpu --include-ignored --test-threads 1 radix > $L/gpu_radix.txt 2>&1; echo "== gpu radix rc=$? $((SECONDS-s)) s" >> $S; grep -E "test result|FAILED|panicked" $L/gpu_radix.txt >> $S
s=$SECONDS
for n in 1 2 4 8 16; do for lm in 22 23 24 25 26; do
  [ $((n << lm)) -gt $((1 << 28)) ] && continue
  for st in radix auto; do
    timeout 30 devbin/s1/rtopk bench cuda --n $n --m $((1 << lm)) -k 16,64,256,1024 --strategy $st --reps 10 --json > $L/g.json 2>> $L/gate.err
    python3 -c "import json;[print(json.dumps({'n':c['n'],'m':c['m'],'k':c['k'],'strategy':'$st','ms':c['median_ms']})) for c in json.load(open('$L/g.json'))]" >> $L/gate.jsonl 2>>$L/gate.err
  done
done; done
echo "== gate $((SECONDS-s)) s $(wc -l < $L/gate.jsonl) lines" >> $S
cp $L/device.txt $L/gate.jsonl $OUT/
tar czf $OUT/logs.tgz -C $L --exclude '*.npy' --exclude g.json .
echo "== end" >> $S
