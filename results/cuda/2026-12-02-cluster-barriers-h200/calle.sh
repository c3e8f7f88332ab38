#!/usr/bin/env bash
# Usage (from the repository root on the device): calle.sh — call e (record.md): the committed
# tree's build, devbin/u3 (the rtopk binary, rtopk-cuda's lib and gpu test binaries, rtopk's
# gpu_ragged test binary), against d8c95b6's (devbin/u1/rtopk): every unit's NVRTC build,
# rtopk-cuda's cluster GPU test and gpu_ragged's (GPU against bisect and warp-sim), `rtopk
# verify cuda --quick --dtype float32`, the CLI's cluster selects against bisect
# (../2026-12-01-cluster-narrow-h200/select_check.sh), both builds' single shapes alternated
# twice and the seven grids once each, and torch.topk on the single shapes (bench/torch_topk.py).
set -uo pipefail
T=results/cuda/2026-12-02-step-trigger-h200
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
B=devbin/u3; chmod +x $B/* devbin/u1/rtopk
s=$SECONDS; timeout 200 $B/rtopk_cuda --ignored every_unit_compiles > $L/units.txt 2>&1; echo "== units rc=$? $((SECONDS-s)) s" >> $S; grep -E "test result|panicked" $L/units.txt | head -5 >> $S
s=$SECONDS; timeout 200 $B/gpu --ignored --test-threads 1 cluster > $L/gpu_cluster.txt 2>&1; echo "== gpu cluster rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_cluster.txt | head >> $S
s=$SECONDS; timeout 240 $B/gpu_ragged --ignored --test-threads 1 cluster > $L/gpu_ragged_cluster.txt 2>&1; echo "== gpu_ragged cluster rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_ragged_cluster.txt | head -20 >> $S
s=$SECONDS; timeout 200 $B/rtopk verify cuda --quick --dtype float32 > $L/verify.txt 2>&1; echo "== verify rc=$? $((SECONDS-s)) s" >> $S; grep -E "verify cuda on|MISMATCH" $L/verify.txt | head -3 | cut -c1-600 >> $S
bash results/cuda/2026-12-01-cluster-narrow-h200/select_check.sh $B/rtopk $L $S
SHAPES="1x32768:1024 1x40000:2048 1x49152:2048 1x65536:512 1x100000:2048 1x131072:1024 1x163840:2048 1x262144:2048 1x262144:512 1x500000:2048 8x100000:2048 4x262144:1024 16x131072:1024"
for i in 1 2; do for b in new old; do
  X=devbin/u1/rtopk; [ $b = new ] && X=$B/rtopk
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b
  for c in $SHAPES; do sh=${c%:*}
    timeout 60 $X bench cuda --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --reps 20 --json > $L/one_${b}_${i}_${sh}_${c#*:}.json 2>> $L/one.err
  done
done; done
$PY $T/one_table.py $L > $L/one_table.md 2>&1; cat $L/one_table.md >> $S
G=rtopk,appendix-b,split,indexer,sampler,vector,vector-k
for b in new old; do
  X=devbin/u1/rtopk; [ $b = new ] && X=$B/rtopk
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b
  s=$SECONDS; timeout 150 $X bench cuda --grid $G --reps 10 --json > $L/grid_${b}_1.json 2> $L/grid_${b}_1.err; echo "== grid $b rc=$? $((SECONDS-s)) s" >> $S
done
python3 bench/ab_compare.py $L/grid_old_1.json $L/grid_new_1.json > $L/ab.txt 2>&1; tail -1 $L/ab.txt | cut -c1-1200 >> $S
python3 $T/groups.py $L > $L/groups.md 2>&1; cat $L/groups.md >> $S
$PY $T/one_table.py $L cells > $L/ones.json
s=$SECONDS; timeout 200 $PY bench/torch_topk.py $L/ones.json > $L/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
$PY $T/torch_table.py $L >> $S 2>&1
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
