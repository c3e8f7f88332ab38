#!/usr/bin/env bash
# Usage (from the repository root on the device): call.sh a|b|c — one call of this record:
# rtopk_cluster_rows_narrow, cluster rows that narrow in a launch of their own (record.md),
# against HEAD's build (devbin/q3/rtopk: b194fe9's kernels, those of bbab535).
#   a: devbin/p1, the probe build (the narrowing launch for exact f32 rows of k <= 256 past
#      32768), to set the rule: single shapes around the rule's edges
#   b: devbin/f2, the build of the rule chosen from call a
#   c: devbin/f3, the committed tree's build (f2's code, comments and tests since, and
#      pad_results shared by the radix write's padding), as b with fewer single shapes, and
#      every gpu_ragged test
#   all: the CLI's selects of gen_cluster.py's `narrow` rows against bisect (values,
#         indices, iteration counts), largest and smallest; rtopk-cuda's cluster GPU test and
#         gpu_ragged's cluster tests (GPU against bisect and warp-sim); compute-sanitizer
#         memcheck and racecheck; the seven grids, both builds alternated twice; the single
#         shapes (20 launches, alternated twice; ../2026-12-01-cluster-narrow-h200/one_table.py)
#   b, c: the indexer and sampler grids on uniform and laplace rows; torch.topk on the grids'
#         cells that narrow (narrow_cells.py, bench/torch_topk.py)
set -uo pipefail
CALL=$1
R=results/cuda/2026-12-01-cluster-narrow-h200
case $CALL in
  a) NEW=p1; KS=8,20,64,128,256
     SHAPES="1x40000 1x49152 1x65536 1x81920 1x100000 1x131072 1x163840 1x262144 4x262144 8x65536 16x131072" ;;
  b) NEW=f2; KS=8,20,64,128,256
     SHAPES="1x81920 1x90000 1x98304 1x110000 1x120000 1x163840 1x200000 1x262144 1x300000 4x262144 16x100352" ;;
  c) NEW=f3; KS=20,64,128
     SHAPES="1x100000 1x262144 16x100352" ;;
  *) echo "usage: call.sh a|b|c" >&2; exit 2 ;;
esac
S=$OUT/steps.txt; L=/tmp/ld; mkdir -p $L /tmp/in
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
B=devbin/$NEW; chmod +x $B/* devbin/q3/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
bash $R/select_check.sh $B/rtopk $L $S narrow
$B/rtopk plan --gpu h200 --n 16 --m 131072 -k 8 > $L/plan_16x131072.txt 2>&1; grep -m3 -i "unit\|rtopk_" $L/plan_16x131072.txt >> $S
s=$SECONDS; timeout 240 $B/gpu --ignored --test-threads 1 cluster > $L/gpu_cluster.txt 2>&1; echo "== gpu cluster rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_cluster.txt | head >> $S
F=cluster; [ $CALL = c ] && F=
s=$SECONDS; timeout 300 $B/gpu_ragged --ignored --test-threads 1 $F > $L/gpu_ragged_cluster.txt 2>&1; echo "== gpu_ragged cluster rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_ragged_cluster.txt | head -40 >> $S
for tool in memcheck racecheck; do for c in a e; do
  s=$SECONDS; f=$L/san_${tool}_$c.log; k=$(cat /tmp/in/${c}_k.txt)
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $B/rtopk select --algo cuda -k $k --input /tmp/in/${c}_x.npy --values /tmp/sv.npy --indices /tmp/si.npy > $f 2>&1
  echo "== $tool $c rc=$? $((SECONDS-s)) s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1)" >> $S
done; done
for i in 1 2; do for b in $NEW q3; do
  for sh in $SHAPES; do
    timeout 30 devbin/$b/rtopk bench cuda --n ${sh%x*} --m ${sh#*x} -k $KS --reps 20 --json > $L/one_${b}_${i}_$sh.json 2>> $L/one.err
  done
done; done
$PY $R/one_table.py $L $NEW >> $S 2>&1
G=rtopk,appendix-b,split,indexer,sampler,vector,vector-k
for i in 1 2; do
  for b in $NEW q3; do
    s=$SECONDS; timeout 90 devbin/$b/rtopk bench cuda --grid $G --reps 10 --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_q3_$i.json $L/grid_${NEW}_$i.json > $L/ab_$i.txt 2>&1; tail -1 $L/ab_$i.txt | cut -c1-700 >> $S
done
if [ $CALL != a ]; then
  for b in $NEW q3; do
    s=$SECONDS; timeout 120 devbin/$b/rtopk bench cuda --grid indexer,sampler --dist uniform,laplace --reps 10 --json > $L/dist_$b.json 2> $L/dist_$b.err; echo "== dist $b rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/dist_q3.json $L/dist_$NEW.json > $L/ab_dist.txt 2>&1; tail -1 $L/ab_dist.txt | cut -c1-700 >> $S
  N=results/cuda/2026-12-02-cluster-narrow-entry-h200/narrow_cells.py
  python3 $N $L $NEW cells && $PY bench/torch_topk.py $L/cells.json > $L/torch.json 2> $L/torch.err
  python3 $N $L $NEW table $B/rtopk > $L/narrow_cells.md 2>&1; cat $L/narrow_cells.md >> $S
fi
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
