#!/usr/bin/env bash
# call d (from the repository root on the device): the committed build (devbin/q3: the radix
# entry points' ragged twins; a ragged
# row's length spread over all its blocks, the keeping budgets the launch's). Correctness: the
# gpu_ragged radix test (GPU against warp-sim and the oracle), the CLI's ragged radix selects
# against bisect and under compute-sanitizer, check.sh's plain radix cases against bisect.
# Time: the seven grids against HEAD's build (devbin/n6) alternated twice, torch.topk on the
# shapes; bench/decode.py, HEAD's wheel (devbin/p0) and the new one alternated; the kernels
# per call.
set -uo pipefail
R=results/cuda/2026-12-01-ragged-radix-h200; P=results/cuda/2026-11-30-radix-rows-h200
C=results/cuda/2026-11-30-radix-candidates-h200; W=results/cuda/2026-12-01-radix-listed-write-h200
S=$OUT/steps.txt; L=/tmp/ld; mkdir -p $L /tmp/in
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
B=devbin/q3; chmod +x $B/rtopk $B/gpu_ragged devbin/n6/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
s=$SECONDS; timeout 120 $B/gpu_ragged --ignored --test-threads 1 radix > $L/gpu_ragged_radix.txt 2>&1; echo "== gpu_ragged radix rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_ragged_radix.txt | head >> $S
$PY $R/gen_ragged.py /tmp/in >> $S 2>&1
for c in one five; do for t in x x16; do
  for a in cuda bisect; do
    timeout 60 $B/rtopk select --algo $a --input /tmp/in/${c}_$t.npy --lengths /tmp/in/${c}_len.npy --k-per-row /tmp/in/${c}_k.npy --values /tmp/o_${a}_${c}_${t}_v.npy --indices /tmp/o_${a}_${c}_${t}_i.npy --threshold /tmp/o_${a}_${c}_${t}_t.npy > $L/sel_${a}_${c}_$t.txt 2>&1 || echo "== select $a $c $t rc=$?" >> $S
  done
  $PY $R/cmp_npy.py /tmp/o_cuda_${c}_$t /tmp/o_bisect_${c}_$t >> $S 2>&1
done; done
for tool in memcheck racecheck; do for c in one five; do
  s=$SECONDS; f=$L/san_${tool}_$c.log
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/rtopk select --algo cuda --input /tmp/in/${c}_x.npy --lengths /tmp/in/${c}_len.npy --k-per-row /tmp/in/${c}_k.npy --values /tmp/sv.npy --indices /tmp/si.npy > $f 2>&1
  echo "== $tool $c rc=$? $((SECONDS-s)) s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1)" >> $S
done; done
python3 $P/gen.py /tmp/in; python3 $C/gen_extra.py /tmp/in; python3 $W/gen_listed.py /tmp/in
s=$SECONDS; timeout 200 bash $P/check.sh $B/rtopk $L > $L/check.txt 2>&1; echo "== check.sh rc=$? $((SECONDS-s)) s" >> $S; grep -E "MISMATCH|checked" $L/check.txt | head -20 >> $S
G=rtopk,appendix-b,split,indexer,sampler,vector,vector-k
for i in 1 2; do
  for b in q3 n6; do
    s=$SECONDS; timeout 90 devbin/$b/rtopk bench cuda --grid $G --reps 10 --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_n6_$i.json $L/grid_q3_$i.json > $L/ab_$i.txt 2>&1; tail -1 $L/ab_$i.txt | cut -c1-700 >> $S
done
for w in p0 q3; do $PY -m pip install --no-deps --target /tmp/site_$w devbin/$w/*.whl > $L/pip_$w.txt 2>&1; done
SH="1x1048576:2048 2x1048576:2048 16x1048576:2048 8x1048576:512 32x1048576:2048 128x131072:2048 8x131072:2048 64x32768:2048 1x2097152:2048 8x2097152:2048 3x4194304:8192 64x128256:50"
ARGS=""; for s in $SH; do ARGS="$ARGS --shape $s"; done
for j in 1 2 3 4; do
  w=p0; [ $j = 2 ] || [ $j = 3 ] && w=q3; s=$SECONDS
  PYTHONPATH=/tmp/site_$w:bench timeout 100 $PY bench/decode.py $ARGS --steps 4 --reps 10 --out $L/decode_${w}_$j.json > $L/decode_${w}_$j.txt 2>&1
  echo "== decode $w $j rc=$? $((SECONDS-s)) s" >> $S
done
s=$SECONDS; PYTHONPATH=/tmp/site_q3:bench timeout 60 $PY results/cuda/2026-11-29-ragged-chunks-h200/ragged_prof.py $L/prof_q3.json 1x1048576:2048 16x1048576:2048 8x1048576:512 8x2097152:2048 3x4194304:8192 > $L/prof_q3.txt 2>&1; echo "== prof rc=$? $((SECONDS-s)) s" >> $S
s=$SECONDS; timeout 120 $PY bench/torch_topk.py $L/grid_q3_1.json > $L/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
cp $L/device.txt $OUT/
tail -15 $L/decode_q3_2.txt >> $S
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
