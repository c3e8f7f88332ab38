#!/usr/bin/env bash
# call a (from the repository root on the device): the sample build (devbin/s1) — every radix
# case of check.sh against bisect, the radix GPU tests against the simulator and bisect, one
# long row forced onto the radix select at k = 64..1024 beside the default route and 4437bfc's
# build (devbin/v), and each radix kernel of the new build by Nsight Compute.
set -uo pipefail
R=results/cuda/2026-12-01-radix-sample-h200
S=$OUT/steps.txt; L=/tmp/la; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/s1/* devbin/v/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
s=$SECONDS; python3 $R/gen.py /tmp/in > $L/gen.txt 2>&1; echo "== gen rc=$? $((SECONDS-s)) s" >> $S
s=$SECONDS; timeout 300 bash $R/check.sh devbin/s1/rtopk $L > $L/check.txt 2>&1; echo "== check rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/check.txt >> $S
s=$SECONDS; timeout 120 devbin/s1/gpu --include-ignored --test-threads 1 radix > $L/gpu_radix.txt 2>&1; echo "== gpu radix rc=$? $((SECONDS-s)) s" >> $S; grep -E "test result|FAILED|panicked" $L/gpu_radix.txt >> $S
for b in s1 v; do for st in radix auto; do
  s=$SECONDS; timeout 60 devbin/$b/rtopk bench cuda --n 1 --m 268435456 -k 64,256,1024 --strategy $st --reps 10 --json > $L/long_${b}_${st}.json 2> $L/long_${b}_${st}.err; echo "== long $b $st rc=$? $((SECONDS-s)) s" >> $S
  python3 -c "import json;print([(c['k'],round(c['median_ms'],4)) for c in json.load(open('$L/long_${b}_${st}.json'))])" >> $S 2>&1
done; done
for m in 33554432 67108864; do for b in s1 v; do for st in radix auto; do
  timeout 60 devbin/$b/rtopk bench cuda --n 1 --m $m -k 256,2048 --strategy $st --reps 10 --json > $L/m${m}_${b}_${st}.json 2> $L/m${m}_${b}_${st}.err; echo "== m $m $b $st rc=$?" >> $S
  python3 -c "import json;print([(c['k'],round(c['median_ms'],4)) for c in json.load(open('$L/m${m}_${b}_${st}.json'))])" >> $S 2>&1
done; done; done
s=$SECONDS; timeout 60 ncu --csv --print-units base --metrics gpu__time_duration.sum --cache-control all -k regex:radix devbin/s1/rtopk bench cuda --n 1 --m 268435456 -k 256 --strategy radix --reps 1 > $L/ncu.csv 2> $L/ncu.err; echo "== ncu $((SECONDS-s)) s" >> $S
grep radix $L/ncu.csv | awk -F'","' '{print $5, $NF}' | tail -12 >> $S
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L --exclude '*.npy' .
echo "== end" >> $S
