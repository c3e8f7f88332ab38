#!/usr/bin/env bash
# call b (from the repository root on the device): the second build (devbin/rx7/rtopk: a
# tile's places taken by the block at once, digits at four blocks an SM) against da4e31a's
# (devbin/rx4/rtopk): check.sh's select cases against bisect (gen.py of the radix record and
# gen_extra.py here), the seven grids alternated new, old, new, old, one long row of 2^25 and
# 2^28 in four input families, each radix kernel's time by Nsight Compute at 1 x 2^28,
# k = 32768, and compute-sanitizer on selects whose candidates fit and whose do not (f32 and f16).
set -uo pipefail
R=results/cuda/2026-11-30-radix-candidates-h200; P=results/cuda/2026-11-30-radix-rows-h200
NEW=${NEW:-rx7}
S=$OUT/steps.txt; L=/tmp/ld; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/$NEW/rtopk devbin/rx4/rtopk
python3 $P/gen.py /tmp/in; python3 $R/gen_extra.py /tmp/in
s=$SECONDS; timeout 200 bash $P/check.sh devbin/$NEW/rtopk $L > $L/check.txt 2>&1; echo "== check.sh rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/check.txt >> $S
G=rtopk,appendix-b,split,indexer,sampler,vector,vector-k
for i in 1 2; do
  for b in $NEW rx4; do
    s=$SECONDS; timeout 120 devbin/$b/rtopk bench cuda --grid $G --reps 10 --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_rx4_$i.json $L/grid_${NEW}_$i.json > $L/ab_$i.txt 2>&1; tail -1 $L/ab_$i.txt | cut -c1-1500 >> $S
done
for i in 1 2; do
  for b in $NEW rx4; do
    for m in 33554432 268435456; do
      s=$SECONDS; timeout 60 devbin/$b/rtopk bench cuda --n 1 --m $m -k 8192,32768 --dist normal,uniform,ties,radix-adversarial --reps 10 --json > $L/fam_${b}_${m}_$i.json 2> $L/fam_${b}_${m}_$i.err; echo "== families $b $m $i rc=$? $((SECONDS-s)) s" >> $S
    done
  done
done
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for b in $NEW rx4; do
  s=$SECONDS; timeout 90 ncu --csv --print-units base --metrics gpu__time_duration.sum --cache-control all -k regex:radix devbin/$b/rtopk bench cuda --n 1 --m 268435456 -k 32768 --reps 1 > $L/ncu_$b.csv 2> $L/ncu_$b.err; echo "== ncu $b $((SECONDS-s)) s" >> $S
  grep radix $L/ncu_$b.csv | awk -F'","' '{print $5, $NF}' | tail -5 >> $S
done
for tool in memcheck racecheck; do
  for c in "bench cuda --n 3 --m 3000001 -k 8192 --reps 1" "bench cuda --input /tmp/in/uniformhalf_3x3000001.npy -k 8192 --reps 1" \
           "select --algo cuda --input /tmp/in/uniformhalff16_1x4194304.npy -k 32768 --smallest --values /tmp/sv.npy --indices /tmp/si.npy" \
           "select --algo cuda --input /tmp/in/normalf16_3x3000001.npy -k 8192 --values /tmp/sv.npy --indices /tmp/si.npy"; do
    s=$SECONDS; f=$L/san_${tool}_$(echo $c | tr -c 'a-z0-9' _ | cut -c1-80).log
    timeout 80 compute-sanitizer --tool $tool --error-exitcode 9 devbin/$NEW/rtopk $c > $f 2>&1
    echo "== $tool [$c] rc=$? $((SECONDS-s)) s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1)" >> $S
  done
done
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
