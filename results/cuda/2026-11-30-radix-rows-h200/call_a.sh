#!/usr/bin/env bash
# call a (from the repository root on the device): the radix select (devbin/rx1/rtopk: the
# working tree's CLI) against the tree before it (devbin/c2/rtopk, the committed kernels of
# 3137192): the vector-k, vector, indexer, sampler and split grids alternated new, old, new,
# old; the same grids forced onto the radix select (--strategy radix); torch.topk on the same
# shapes; check.sh's select cases against bisect; the GPU tests of the radix select (against
# bisect and warp-sim) and of 16-bit rows in every strategy; compute-sanitizer's memcheck,
# racecheck and synccheck on radix selects.
set -uo pipefail
R=results/cuda/2026-11-30-radix-rows-h200
S=$OUT/steps.txt; L=/tmp/ld; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/rx1/rtopk devbin/rx1/gpu devbin/c2/rtopk
G=vector-k,vector,indexer,sampler,split
for i in 1 2; do
  for b in rx1 c2; do
    s=$SECONDS; timeout 120 devbin/$b/rtopk bench cuda --grid $G --reps 10 --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_c2_$i.json $L/grid_rx1_$i.json > $L/ab_$i.txt 2>&1; tail -1 $L/ab_$i.txt | cut -c1-1500 >> $S
done
s=$SECONDS; timeout 120 devbin/rx1/rtopk bench cuda --grid $G --reps 10 --json --strategy radix > $L/grid_radix.json 2> $L/grid_radix.err; echo "== grid forced radix rc=$? $((SECONDS-s)) s" >> $S
python3 bench/ab_compare.py $L/grid_c2_1.json $L/grid_radix.json > $L/ab_radix.txt 2>&1; tail -1 $L/ab_radix.txt | cut -c1-1500 >> $S
s=$SECONDS; timeout 100 python3 bench/torch_topk.py $L/grid_rx1_1.json > $L/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
python3 $R/gen.py /tmp/in
s=$SECONDS; timeout 200 bash $R/check.sh devbin/rx1/rtopk $L > $L/check.txt 2>&1; echo "== check.sh rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/check.txt >> $S
for t in radix_rows_match_bisect_and_the_simulator sixteen_bit_rows_match_bisect_in_every_strategy; do
  s=$SECONDS; timeout 150 devbin/rx1/gpu --include-ignored --exact $t > $L/test_$t.txt 2>&1; echo "== test $t rc=$? $((SECONDS-s)) s" >> $S; grep -E "test result|panicked|assert" $L/test_$t.txt | head -5 >> $S
done
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
cases=("--n 3 --m 3000001 -k 8192" "--n 1 --m 4194304 -k 32768 --smallest --dist ties")
for run in "memcheck 0" "memcheck 1" "racecheck 0" "synccheck 0"; do
  set -- $run; tool=$1; c=${cases[$2]}
  {
    s=$SECONDS; f=$L/san_${tool}_$(echo $c | tr -c 'a-z0-9' _).log
    timeout 80 compute-sanitizer --tool $tool --error-exitcode 9 devbin/rx1/rtopk bench cuda $c --reps 1 > $f 2>&1
    echo "== $tool [$c] rc=$? $((SECONDS-s)) s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1)" >> $S
  }
done
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
