#!/usr/bin/env bash
# Usage (from the repository root on the device): call.sh a|b|c|d — one call of this record:
# cluster rows that narrow to their candidates in block 0 (record.md's forms 1-4: builds
# devbin/c1 ... devbin/c4, each rtopk, rtopk-cuda's gpu test and gpu_ragged, stripped) against
# HEAD's build (devbin/q3/rtopk, bbab535's kernels).
#   c:      first each build's f32 cluster units through ptxas -v (registers, spills); no GPU
#           tests (its build carried rtopk only)
#   all:    the CLI's selects of gen_cluster.py's rows against bisect (values, indices,
#           iteration counts as *_t.npy), largest and smallest; compute-sanitizer memcheck and
#           racecheck; the seven grids, both builds alternated twice
#   a,b,d:  rtopk-cuda's cluster GPU test (GPU against bisect and warp-sim, which narrows the
#           same rows) and gpu_ragged's cluster test
#   b,c,d:  single shapes (20 launches, alternated twice; one_table.py), and the indexer and
#           sampler grids on uniform and laplace rows, once each
#   e:      the committed tree's gpu_ragged (devbin/f1: its helpers ragged_program, ragged_unit
#           and takes_radix shared) — the radix tests and the f32 ragged test, nothing else
set -uo pipefail
CALL=$1
if [ $CALL = e ]; then
  S=$OUT/steps.txt; nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt
  chmod +x devbin/f1/gpu_ragged
  for t in radix:radix f32:ragged_rows_on_the_gpu_equal_the_simulator_f32; do
    f=${t#*:}; o=$OUT/gpu_ragged_${t%%:*}.txt
    s=$SECONDS; timeout 150 devbin/f1/gpu_ragged --ignored --test-threads 1 $f > $o 2>&1
    echo "== gpu_ragged $f rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $o >> $S
  done
  exit 0
fi
R=results/cuda/2026-12-01-cluster-narrow-h200
case $CALL in
  a) NEW=c1 ;;
  b) NEW=c2; KS=512,1024,2048
     SHAPES="1x49152 1x100000 1x163840 1x262144 2x262144 4x262144 8x100000" ;;
  c) NEW=c3; KS=512,1024,2048
     SHAPES="1x49152 1x100000 1x163840 1x262144 2x262144 4x262144 8x100000" ;;
  d) NEW=c4; KS=20,64,512,1024
     SHAPES="1x49152 1x100000 1x131072 1x163840 1x262144 4x262144 8x100000 16x131072" ;;
  *) echo "usage: call.sh a|b|c|d" >&2; exit 2 ;;
esac
S=$OUT/steps.txt; L=/tmp/ld; mkdir -p $L /tmp/in
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
B=devbin/$NEW; chmod +x $B/* devbin/q3/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
if [ $CALL = c ]; then
  for b in $NEW q3; do
    devbin/$b/rtopk bench cuda --emit-sources /tmp/emit_$b > /dev/null 2>&1
    for u in rtopk_cluster_rows rtopk_cluster_rows_ragged; do
      nvcc -cubin -arch=sm_90 -std=c++17 -Xptxas -v /tmp/emit_$b/$u.cu -o /tmp/$u.cubin > $L/ptxas_${b}_$u.txt 2>&1
      echo "== ptxas $b $u: $(grep -E 'registers|spill' $L/ptxas_${b}_$u.txt | tr '\n' ' ' | cut -c1-300)" >> $S
    done
  done
fi
bash $R/select_check.sh $B/rtopk $L $S
if [ $CALL != c ]; then
  s=$SECONDS; timeout 240 $B/gpu --ignored --test-threads 1 cluster > $L/gpu_cluster.txt 2>&1; echo "== gpu cluster rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_cluster.txt | head >> $S
  s=$SECONDS; timeout 150 $B/gpu_ragged --ignored --test-threads 1 cluster > $L/gpu_ragged_cluster.txt 2>&1; echo "== gpu_ragged cluster rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_ragged_cluster.txt | head >> $S
fi
for tool in memcheck racecheck; do for c in a d; do
  s=$SECONDS; f=$L/san_${tool}_$c.log; k=$(cat /tmp/in/${c}_k.txt)
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $B/rtopk select --algo cuda -k $k --input /tmp/in/${c}_x.npy --values /tmp/sv.npy --indices /tmp/si.npy > $f 2>&1
  echo "== $tool $c rc=$? $((SECONDS-s)) s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1)" >> $S
done; done
G=rtopk,appendix-b,split,indexer,sampler,vector,vector-k
for i in 1 2; do
  for b in $NEW q3; do
    s=$SECONDS; timeout 90 devbin/$b/rtopk bench cuda --grid $G --reps 10 --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_q3_$i.json $L/grid_${NEW}_$i.json > $L/ab_$i.txt 2>&1; tail -1 $L/ab_$i.txt | cut -c1-700 >> $S
done
if [ $CALL != a ]; then
  for i in 1 2; do for b in $NEW q3; do
    for sh in $SHAPES; do
      timeout 30 devbin/$b/rtopk bench cuda --n ${sh%x*} --m ${sh#*x} -k $KS --reps 20 --json > $L/one_${b}_${i}_$sh.json 2>> $L/one.err
    done
  done; done
  $PY $R/one_table.py $L $NEW >> $S 2>&1
  for b in $NEW q3; do
    s=$SECONDS; timeout 120 devbin/$b/rtopk bench cuda --grid indexer,sampler --dist uniform,laplace --reps 10 --json > $L/dist_$b.json 2> $L/dist_$b.err; echo "== dist $b rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/dist_q3.json $L/dist_$NEW.json > $L/ab_dist.txt 2>&1; tail -1 $L/ab_dist.txt | cut -c1-700 >> $S
fi
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
