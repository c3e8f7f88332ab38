#!/usr/bin/env bash
# call b (from the repository root on the device): the committed build (devbin/c1/rtopk:
# chunk-major chunk launches, the floor gated by FLOOR_MIN_ROW, FLOOR_MIN_ELEMENTS and
# FLOOR_MIN_BLOCK_ELEMENTS) against the tree before (devbin/base2/rtopk, 4c8dc15) in one call:
# the RTop-K, Appendix B, split, indexer, sampler, vector and vector-k grids alternated new,
# old, new, old; torch.topk on the same shapes; check.sh's select cases against bisect;
# `rtopk verify cuda --quick` in f32 and bf16 (forced splits, with the floor, against warp-sim).
set -uo pipefail
R=results/cuda/2026-11-30-chunk-major-h200
S=$OUT/steps.txt; L=/tmp/ld; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/c1/rtopk devbin/base2/rtopk
G=rtopk,appendix-b,split,indexer,sampler,vector,vector-k
for i in 1 2; do
  for b in c1 base2; do
    s=$SECONDS; timeout 120 devbin/$b/rtopk bench cuda --grid $G --reps 10 --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_base2_$i.json $L/grid_c1_$i.json > $L/ab_$i.txt 2>&1; tail -1 $L/ab_$i.txt | cut -c1-1200 >> $S
done
s=$SECONDS; timeout 100 python3 bench/torch_topk.py $L/grid_c1_1.json > $L/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
python3 $R/gen.py /tmp/in
s=$SECONDS; timeout 200 bash $R/check.sh devbin/c1/rtopk $L > $L/check.txt 2>&1; echo "== check.sh rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/check.txt >> $S
for d in float32 bfloat16; do
  s=$SECONDS; timeout 110 devbin/c1/rtopk verify cuda --quick --dtype $d > $L/verify_$d.txt 2>&1; echo "== verify $d rc=$? $((SECONDS-s)) s" >> $S; grep -E "split|mismatch|differ" $L/verify_$d.txt | head -5 >> $S; tail -1 $L/verify_$d.txt >> $S
done
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
