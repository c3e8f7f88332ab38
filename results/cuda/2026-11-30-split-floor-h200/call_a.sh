#!/usr/bin/env bash
# call a (from the repository root on the device): the floor build (devbin/f1/rtopk) against
# the build before it (devbin/base/rtopk, 68363f5), in one call: every select case of check.sh
# against bisect, `rtopk verify cuda --quick` (f32), then the split, vector and vector-k grids,
# new then old, and torch.topk on the same shapes.
set -uo pipefail
R=results/cuda/2026-11-30-split-floor-h200
S=$OUT/steps.txt; L=/tmp/la; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/f1/rtopk devbin/base/rtopk
python3 $R/gen.py /tmp/in
s=$SECONDS; bash $R/check.sh devbin/f1/rtopk $L > $L/check.txt 2>&1; echo "== check.sh rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/check.txt >> $S
s=$SECONDS; timeout 150 devbin/f1/rtopk verify cuda --quick --dtype float32 > $L/verify_f32.txt 2>&1; echo "== verify f32 rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/verify_f32.txt >> $S
for b in f1 base; do
  s=$SECONDS; timeout 120 devbin/$b/rtopk bench cuda --grid split,vector,vector-k --reps 10 --json > $L/grid_$b.json 2> $L/grid_$b.err; echo "== grid $b rc=$? $((SECONDS-s)) s" >> $S
done
python3 bench/ab_compare.py $L/grid_base.json $L/grid_f1.json > $L/ab.txt 2>&1; tail -30 $L/ab.txt >> $S
s=$SECONDS; timeout 80 python3 bench/torch_topk.py $L/grid_f1.json > $L/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
