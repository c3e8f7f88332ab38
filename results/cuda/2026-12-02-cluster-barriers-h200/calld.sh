#!/usr/bin/env bash
# Usage (from the repository root on the device): calld.sh — call d (record.md): this tree's
# build (devbin/u2/rtopk: ballot_round on wide clusters, five steps a round from 8192 keys;
# rows past 65536 on wide clusters) against d8c95b6's (devbin/u1/rtopk): single shapes (20
# launches, alternated twice), `rtopk verify cuda --quick --dtype float32`, then the seven
# grids once each (bench/ab_compare.py).
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
chmod +x devbin/u1/rtopk devbin/u2/rtopk
T=results/cuda/2026-12-02-step-trigger-h200
G=rtopk,appendix-b,split,indexer,sampler,vector,vector-k
SHAPES="1x32768:1024 1x40000:2048 1x49152:2048 1x65536:512 1x81920:1024 1x98304:2048 1x100000:2048 1x131072:1024 1x163840:2048 1x262144:2048 1x262144:512 1x500000:2048 2x100000:1024 8x100000:2048 4x262144:1024 16x131072:1024"
for i in 1 2; do for b in new old; do
  B=devbin/u1/rtopk; [ $b = new ] && B=devbin/u2/rtopk
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b
  for c in $SHAPES; do sh=${c%:*}
    timeout 60 $B bench cuda --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --reps 20 --json > $L/one_${b}_${i}_${sh}_${c#*:}.json 2>> $L/one.err
  done
done; done
$PY $T/one_table.py $L > $L/one_table.md 2>&1; cat $L/one_table.md >> $S
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_new
s=$SECONDS; timeout 170 devbin/u2/rtopk verify cuda --quick --dtype float32 > $L/verify.txt 2>&1
echo "== verify rc=$? $((SECONDS-s)) s" >> $S; grep -E "verify cuda on|MISMATCH|rror" $L/verify.txt | head -3 | cut -c1-500 >> $S
for b in new old; do
  B=devbin/u1/rtopk; [ $b = new ] && B=devbin/u2/rtopk
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b
  s=$SECONDS; timeout 150 $B bench cuda --grid $G --reps 10 --json > $L/grid_${b}_1.json 2> $L/grid_${b}_1.err; echo "== grid $b rc=$? $((SECONDS-s)) s" >> $S
done
python3 bench/ab_compare.py $L/grid_old_1.json $L/grid_new_1.json > $L/ab.txt 2>&1; tail -3 $L/ab.txt | cut -c1-1500 >> $S
python3 $T/groups.py $L > $L/groups.md 2>&1; cat $L/groups.md >> $S
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
