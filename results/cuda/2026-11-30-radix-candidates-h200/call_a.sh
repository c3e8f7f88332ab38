#!/usr/bin/env bash
# call a (from the repository root on the device): the candidates build (devbin/rx6/rtopk)
# against da4e31a's (devbin/rx4/rtopk): every select case of the radix record's check.sh
# against bisect, on its inputs (gen.py there) and on this record's (gen_extra.py: candidates
# that overflow, heavy ties); the seven grids alternated new, old, new, old, with torch.topk on
# the new one's shapes; one long row of 2^25 and 2^28 in four input families, both builds;
# compute-sanitizer on a select whose candidates fit and one whose do not; each kernel's time
# by Nsight Compute at 1 x 2^28, k = 32768.
set -uo pipefail
R=results/cuda/2026-11-30-radix-candidates-h200; P=results/cuda/2026-11-30-radix-rows-h200
S=$OUT/steps.txt; L=/tmp/ld; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/rx6/rtopk devbin/rx4/rtopk
python3 $P/gen.py /tmp/in; python3 $R/gen_extra.py /tmp/in
s=$SECONDS; timeout 200 bash $P/check.sh devbin/rx6/rtopk $L > $L/check.txt 2>&1; echo "== check.sh rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/check.txt >> $S
G=rtopk,appendix-b,split,indexer,sampler,vector,vector-k
for i in 1 2; do
  for b in rx6 rx4; do
    s=$SECONDS; timeout 120 devbin/$b/rtopk bench cuda --grid $G --reps 10 --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_rx4_$i.json $L/grid_rx6_$i.json > $L/ab_$i.txt 2>&1; tail -1 $L/ab_$i.txt | cut -c1-1500 >> $S
done
s=$SECONDS; timeout 100 python3 bench/torch_topk.py $L/grid_rx6_1.json > $L/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
for i in 1 2; do
  for b in rx6 rx4; do
    for m in 33554432 268435456; do
      s=$SECONDS; timeout 60 devbin/$b/rtopk bench cuda --n 1 --m $m -k 8192,32768 --dist normal,uniform,ties,radix-adversarial --reps 10 --json > $L/fam_${b}_${m}_$i.json 2> $L/fam_${b}_${m}_$i.err; echo "== families $b $m $i rc=$? $((SECONDS-s)) s" >> $S
    done
  done
done
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for tool in memcheck racecheck; do
  for c in "--n 3 --m 3000001 -k 8192" "--input /tmp/in/uniformhalf_3x3000001.npy -k 8192" "--input /tmp/in/uniformhalff16_1x4194304.npy -k 32768 --smallest"; do
    s=$SECONDS; f=$L/san_${tool}_$(echo $c | tr -c 'a-z0-9' _).log
    timeout 80 compute-sanitizer --tool $tool --error-exitcode 9 devbin/rx6/rtopk bench cuda $c --reps 1 > $f 2>&1
    echo "== $tool [$c] rc=$? $((SECONDS-s)) s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1)" >> $S
  done
done
for b in rx6 rx4; do
  s=$SECONDS; timeout 90 ncu --csv --print-units base --metrics gpu__time_duration.sum --cache-control all -k regex:radix devbin/$b/rtopk bench cuda --n 1 --m 268435456 -k 32768 --reps 1 > $L/ncu_$b.csv 2> $L/ncu_$b.err; echo "== ncu $b rc=$? $((SECONDS-s)) s" >> $S
  grep radix $L/ncu_$b.csv | awk -F'","' '{print $5, $NF}' | tail -8 >> $S
done
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
