#!/usr/bin/env bash
# Usage (from the repository root on the device): callf.sh — call f (record.md): the committed
# tree's build (devbin/b3: rtopk, rtopk-cuda's gpu tests, gpu_ragged) — the cluster GPU tests
# against bisect and warp-sim, guess_check.py, compute-sanitizer on a guessed cluster row, its
# kernels against a7e7b75's (devbin/h0 as --kernel-dir) on single shapes and other families,
# torch.topk on the single shapes, the indexer and sampler grids, and `rtopk verify cuda
# --quick --dtype float32` where time is left.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
R=results/cuda/2026-12-02-round-levels-h200; T=results/cuda/2026-12-02-step-trigger-h200
tar xJf devbin/pk6.tar.xz -C devbin
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
B=devbin/b3; chmod +x $B/*
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_b3
s=$SECONDS; timeout 150 $B/gpu --ignored --test-threads 1 cluster > $L/gpu_cluster.txt 2>&1; echo "== gpu cluster rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_cluster.txt | cut -c1-400 >> $S
s=$SECONDS; timeout 120 $B/gpu_ragged --ignored --test-threads 1 cluster > $L/gpu_ragged_cluster.txt 2>&1; echo "== gpu_ragged cluster rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_ragged_cluster.txt | cut -c1-400 >> $S
s=$SECONDS; timeout 130 $PY $R/guess_check.py $B/rtopk /tmp/gc > $L/guess_check.txt 2>&1; echo "== guess_check rc=$? $((SECONDS-s)) s" >> $S; tail -12 $L/guess_check.txt >> $S
$PY -c "import numpy as np; np.save('/tmp/san.npy', np.random.default_rng(1).standard_normal((1, 100000)).astype(np.float32))"
for tool in memcheck racecheck synccheck; do
  s=$SECONDS; timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/rtopk select --algo cuda --input /tmp/san.npy -k 2048 --values /tmp/sv.npy --indices /tmp/si.npy > $L/san_$tool.txt 2>&1
  echo "== sanitizer $tool rc=$? $((SECONDS-s)) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_$tool.txt | head -1)" >> $S
done
SHAPES="1x32768:1024 1x40000:2048 1x49152:2048 1x65536:512 1x65536:2048 1x81920:2048 1x100000:512 1x100000:1024 1x100000:2048 1x131072:1024 1x131072:2048 1x163840:2048 1x262144:512 1x262144:2048 1x500000:2048 8x100000:2048 4x262144:1024 16x131072:1024"
mkdir -p $L/final
for i in 1 2; do for b in old new; do
  K=""; [ $b = old ] && K="--kernel-dir devbin/h0"
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b
  for c in $SHAPES; do sh=${c%:*}
    timeout 60 $B/rtopk bench cuda --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --reps 20 --json $K > $L/final/one_${b}_${i}_${sh}_${c#*:}.json 2>> $L/one.err
  done
done; done
echo "## final (normal) $SECONDS s" >> $S; $PY $T/one_table.py $L/final >> $S 2>&1; head -c 300 $L/one.err >> $S
$PY $T/one_table.py $L/final cells > $L/final/ones.json
s=$SECONDS; timeout 120 $PY bench/torch_topk.py $L/final/ones.json > $L/final/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
$PY $T/torch_table.py $L/final >> $S 2>&1
mkdir -p $L/fam
for b in old new; do
  K=""; [ $b = old ] && K="--kernel-dir devbin/h0"
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b
  for c in 1x100000:2048 1x65536:2048 1x163840:2048; do sh=${c%:*}
    timeout 90 $B/rtopk bench cuda --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --reps 20 --dist uniform,ties,llm-logits,radix-adversarial --json $K > $L/fam/fam_${b}_1_${sh}_${c#*:}.json 2>> $L/fam.err
  done
done
$PY $R/families.py $L/fam >> $S 2>&1
if [ $SECONDS -lt 330 ]; then
  for b in old new; do
    K=""; [ $b = old ] && K="--kernel-dir devbin/h0"
    export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b
    s=$SECONDS; timeout 90 $B/rtopk bench cuda --grid indexer,sampler --reps 10 --json $K > $L/grid_${b}.json 2> $L/grid_${b}.err; echo "== grid $b rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_old.json $L/grid_new.json > $L/ab.txt 2>&1; tail -3 $L/ab.txt | cut -c1-1500 >> $S
fi
if [ $SECONDS -lt 410 ]; then
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_b3
  s=$SECONDS; timeout 170 $B/rtopk verify cuda --quick --dtype float32 > $L/verify_f32.txt 2>&1; echo "== verify float32 rc=$? $((SECONDS-s)) s" >> $S; grep -E "verify cuda on|MISMATCH|rror" $L/verify_f32.txt | head -3 | cut -c1-600 >> $S
fi
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
