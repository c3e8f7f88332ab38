#!/usr/bin/env bash
# call b (from the repository root on the device): the digit chosen by the step after its pass
# (devbin/b: the working tree's CLI, its kernels built in) against HEAD's kernels
# (devbin/k0 through the same binary's --kernel-dir: the new plan's larger radix words hold
# the old layout too). check.sh's select cases against bisect; compute-sanitizer memcheck and
# racecheck; single rows events A/B; the grids alternated twice.
set -uo pipefail
R=results/cuda/2026-12-01-radix-spread-h200; P=results/cuda/2026-11-30-radix-rows-h200
C=results/cuda/2026-11-30-radix-candidates-h200; W=results/cuda/2026-12-01-radix-listed-write-h200
S=$OUT/steps.txt; L=/tmp/lb; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
B=devbin/b/rtopk; chmod +x $B
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
s=$SECONDS; timeout 60 $B bench cuda --n 1 --m 2097152 -k 2048 --reps 3 > $L/first.txt 2>&1; echo "== first rc=$? $((SECONDS-s)) s $(tail -2 $L/first.txt | cut -c1-300)" >> $S
for rep in 1 2; do for v in new k0; do for mk in 2097152:2048 4194304:2048 4194304:8192 4194304:32768 33554432:2048 268435456:8192; do
  m=${mk%%:*}; k=${mk##*:}; kd=""; [ $v = k0 ] && kd="--kernel-dir devbin/k0"
  timeout 90 $B bench cuda $kd --n 1 --m $m -k $k --reps 20 --json > $L/t_${v}_${m}_${k}_$rep.json 2>> $L/t.err
  echo "== $rep $v 1 x $m k=$k: $(python3 -c "import json;print([round(c['median_ms']*1000,2) for c in json.load(open('$L/t_${v}_${m}_${k}_$rep.json'))])" 2>&1) us" >> $S
done; done; done
python3 $P/gen.py /tmp/in; python3 $C/gen_extra.py /tmp/in; python3 $W/gen_listed.py /tmp/in
s=$SECONDS; timeout 170 bash $P/check.sh $B $L > $L/check.txt 2>&1; echo "== check.sh rc=$? $((SECONDS-s)) s" >> $S; grep -E "MISMATCH|checked" $L/check.txt | head -20 >> $S
for tool in memcheck racecheck; do
  for c in "bench cuda --n 3 --m 3000001 -k 8192 --dist normal --reps 1" \
           "select --algo cuda --input /tmp/in/spike_1x33554432.npy -k 4096 --values /tmp/sv.npy --indices /tmp/si.npy" \
           "select --algo cuda --input /tmp/in/tiespreadf16_1x33554432.npy -k 4096 --values /tmp/sv.npy --indices /tmp/si.npy"; do
    s=$SECONDS; f=$L/san_${tool}_$(echo $c | tr -c 'a-z0-9' _ | cut -c1-80).log
    timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 $B $c > $f 2>&1
    echo "== $tool [$c] rc=$? $((SECONDS-s)) s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1)" >> $S
  done
done
G=indexer,sampler,vector,vector-k
for i in 1 2; do
  for v in new k0; do
    kd=""; [ $v = k0 ] && kd="--kernel-dir devbin/k0"
    s=$SECONDS; timeout 60 $B bench cuda $kd --grid $G --reps 10 --json > $L/grid_${v}_$i.json 2> $L/grid_${v}_$i.err; echo "== grid $v $i rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_k0_$i.json $L/grid_new_$i.json > $L/ab_$i.txt 2>&1; tail -1 $L/ab_$i.txt | cut -c1-1500 >> $S
done
s=$SECONDS; timeout 60 ncu --csv --print-units base --metrics gpu__time_duration.sum --cache-control none -k regex:radix $B bench cuda --n 1 --m 2097152 -k 2048 --reps 3 > $L/ncu.csv 2> $L/ncu.err; echo "== ncu $((SECONDS-s)) s" >> $S
grep radix $L/ncu.csv | awk -F'","' '{print $5, $NF}' | tr '\n' ' ' >> $S
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
