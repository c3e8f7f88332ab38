#!/usr/bin/env bash
# call c (from the repository root on the device): the committed build (devbin/s2: the sample
# and the sampled rows' gate) against 4437bfc's (devbin/v) — the radix GPU tests (the nested
# radix now on bf16 rows) and the quick f32 verify; the seven grids alternated twice,
# torch.topk on the new one's shapes, the table (table.py) and ab_compare per run.
set -uo pipefail
R=results/cuda/2026-12-01-radix-sample-h200
S=$OUT/steps.txt; L=/tmp/lc; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/s2/* devbin/v/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
s=$SECONDS; timeout 150 devbin/s2/gpu --include-ignored --test-threads 1 radix > $L/gpu_radix.txt 2>&1; echo "== gpu radix rc=$? $((SECONDS-s)) s" >> $S; grep -E "test result|FAILED|panicked" $L/gpu_radix.txt >> $S
s=$SECONDS; timeout 120 devbin/s2/rtopk verify cuda --quick --dtype float32 > $L/verify_f32.txt 2>&1; echo "== verify f32 rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/verify_f32.txt >> $S
G=rtopk,appendix-b,split,indexer,sampler,vector,vector-k
for i in 1 2; do
  for b in new old; do
    B=devbin/s2/rtopk; [ $b = old ] && B=devbin/v/rtopk
    s=$SECONDS; timeout 70 $B bench cuda --grid $G --reps 10 --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_old_$i.json $L/grid_new_$i.json > $L/ab_$i.txt 2>&1; tail -1 $L/ab_$i.txt | cut -c1-800 >> $S
done
s=$SECONDS; timeout 100 python3 bench/torch_topk.py $L/grid_new_1.json > $L/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
python3 $R/table.py $L > $L/table.md 2>&1; cat $L/table.md >> $S
cp $L/device.txt $L/table.md $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
