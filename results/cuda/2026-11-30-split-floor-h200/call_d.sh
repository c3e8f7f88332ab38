#!/usr/bin/env bash
# call d (from the repository root on the device): the floor in entry points of its own
# (devbin/f1/rtopk: `<unit>_floor`, taken by rows of 2^25 and more and by forced splits) against
# the build before it (devbin/base/rtopk, 68363f5), in one call: check.sh's select cases against
# bisect (gen.py's rows, which split without the floor, and gen_big.py's, with it),
# `rtopk verify cuda --quick` in f32 and bf16 (its split cases forced: with the floor), then the
# RTop-K, Appendix B, split, vector and vector-k grids, new then old, and torch.topk on the same
# shapes.
set -uo pipefail
R=results/cuda/2026-11-30-split-floor-h200
S=$OUT/steps.txt; L=/tmp/ld; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/f1/rtopk devbin/base/rtopk
python3 $R/gen.py /tmp/in; python3 $R/gen_big.py /tmp/in
s=$SECONDS; bash $R/check.sh devbin/f1/rtopk $L > $L/check.txt 2>&1; echo "== check.sh rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/check.txt >> $S
for d in float32 bfloat16; do
  s=$SECONDS; timeout 150 devbin/f1/rtopk verify cuda --quick --dtype $d > $L/verify_$d.txt 2>&1; echo "== verify $d rc=$? $((SECONDS-s)) s" >> $S; grep -E "split|mismatch|differ" $L/verify_$d.txt | head -5 >> $S; tail -1 $L/verify_$d.txt >> $S
done
for b in f1 base; do
  s=$SECONDS; timeout 150 devbin/$b/rtopk bench cuda --grid rtopk,appendix-b,split,vector,vector-k --reps 10 --json > $L/grid_$b.json 2> $L/grid_$b.err; echo "== grid $b rc=$? $((SECONDS-s)) s" >> $S
done
python3 bench/ab_compare.py $L/grid_base.json $L/grid_f1.json > $L/ab.txt 2>&1; tail -1 $L/ab.txt | cut -c1-3000 >> $S
s=$SECONDS; timeout 100 python3 bench/torch_topk.py $L/grid_f1.json > $L/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
