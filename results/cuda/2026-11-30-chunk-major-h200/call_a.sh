#!/usr/bin/env bash
# call a (from the repository root on the device): chunk-major chunk launches with the floor on
# every plain split of float rows (devbin/x1/rtopk, an experiment build whose plan gives every
# such split the floor) against the tree before (devbin/base2/rtopk, 4c8dc15): check.sh's
# select cases against bisect, `rtopk verify cuda --quick` in f32, then the split, indexer,
# sampler, vector and vector-k grids alternated new, old, new, old.
set -uo pipefail
R=results/cuda/2026-11-30-chunk-major-h200
S=$OUT/steps.txt; L=/tmp/ld; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/x1/rtopk devbin/base2/rtopk
G=split,indexer,sampler,vector,vector-k
for i in 1 2; do
  for b in x1 base2; do
    s=$SECONDS; timeout 100 devbin/$b/rtopk bench cuda --grid $G --reps 10 --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_base2_$i.json $L/grid_x1_$i.json > $L/ab_$i.txt 2>&1; tail -1 $L/ab_$i.txt | cut -c1-2500 >> $S
done
python3 $R/gen.py /tmp/in
s=$SECONDS; timeout 200 bash $R/check.sh devbin/x1/rtopk $L > $L/check.txt 2>&1; echo "== check.sh rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/check.txt >> $S
s=$SECONDS; timeout 120 devbin/x1/rtopk verify cuda --quick --dtype float32 > $L/verify_float32.txt 2>&1; echo "== verify rc=$? $((SECONDS-s)) s" >> $S; grep -E "split|mismatch|differ" $L/verify_float32.txt | head -5 >> $S; tail -1 $L/verify_float32.txt >> $S
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
