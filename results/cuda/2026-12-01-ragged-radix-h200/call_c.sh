#!/usr/bin/env bash
# call c (from the repository root on the device): the ragged radix select's time. The plain
# kernels of the new build (devbin/q1/rtopk) against HEAD's (devbin/n6/rtopk, 1a5720a's
# kernels, b1810fd's code) on the seven grids, alternated twice, torch.topk on the shapes;
# bench/decode.py (lengths mode and hints) on the indexer shapes, HEAD's wheel (devbin/p0)
# and the new one (devbin/q1), alternated; the new build's kernels per call (ragged_prof.py).
set -uo pipefail
R=results/cuda/2026-12-01-ragged-radix-h200
S=$OUT/steps.txt; L=/tmp/lc; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/q1/rtopk devbin/q1/gpu_ragged devbin/n6/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
G=rtopk,appendix-b,split,indexer,sampler,vector,vector-k
for i in 1 2; do
  for b in q1 n6; do
    s=$SECONDS; timeout 90 devbin/$b/rtopk bench cuda --grid $G --reps 10 --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_n6_$i.json $L/grid_q1_$i.json > $L/ab_$i.txt 2>&1; tail -1 $L/ab_$i.txt | cut -c1-1500 >> $S
done
for w in p0 q1; do $PY -m pip install --no-deps --target /tmp/site_$w devbin/$w/*.whl > $L/pip_$w.txt 2>&1; done
SH="1x1048576:2048 2x1048576:2048 16x1048576:2048 8x1048576:512 32x1048576:2048 128x131072:2048 8x131072:2048 64x32768:2048 1x2097152:2048 8x2097152:2048 3x4194304:8192 64x128256:50"
ARGS=""; for s in $SH; do ARGS="$ARGS --shape $s"; done
for w in p0 q1 q1 p0; do
  i=$(ls $L | grep -c "^decode_$w"); s=$SECONDS
  PYTHONPATH=/tmp/site_$w:bench timeout 150 $PY bench/decode.py $ARGS --steps 4 --reps 10 --out $L/decode_${w}_$i.json > $L/decode_${w}_$i.txt 2>&1
  echo "== decode $w $i rc=$? $((SECONDS-s)) s" >> $S
done
s=$SECONDS; PYTHONPATH=/tmp/site_q1:bench timeout 100 $PY results/cuda/2026-11-29-ragged-chunks-h200/ragged_prof.py $L/prof_q1.json 1x1048576:2048 16x1048576:2048 8x2097152:2048 3x4194304:8192 > $L/prof_q1.txt 2>&1; echo "== prof rc=$? $((SECONDS-s)) s" >> $S
s=$SECONDS; timeout 150 $PY bench/torch_topk.py $L/grid_q1_1.json > $L/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
s=$SECONDS; timeout 150 devbin/q1/gpu_ragged --ignored --test-threads 1 wide::i64 wide::ragged > $L/gpu_ragged_wide.txt 2>&1; echo "== gpu_ragged wide rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result" $L/gpu_ragged_wide.txt >> $S
cp $L/device.txt $OUT/
tail -28 $L/decode_q1_1.txt >> $S
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
