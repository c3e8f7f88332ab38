#!/usr/bin/env bash
# Usage (from the repository root on the device): callc.sh — call c (record.md): the committed
# tree's build, devbin/u6 (the rtopk binary, rtopk's gpu_ragged test binary): gpu_ragged's
# cluster tests (the new wide_cluster_rows_on_the_gpu_equal_the_simulator among them: GPU
# against warp-sim and the oracle, ragged, hinted), `rtopk verify cuda --quick`
# (WIDTHS now with 150001: wide clusters) on float32, and the single shapes of the
# cluster rows beside torch.topk (bench/torch_topk.py) on the same device; kr (variants.py)
# against the build's own kernels on those shapes (alternated twice); then, while the call's
# time allows, verify on float16, bfloat16 and, with --kernel-dir devbin/kr, float32.
set -uo pipefail
T=results/cuda/2026-12-02-step-trigger-h200
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
tar xJf devbin/pkc.tar.xz -C devbin
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
B=devbin/u6; chmod +x $B/*
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_u6
s=$SECONDS; timeout 300 $B/gpu_ragged --ignored --test-threads 1 cluster > $L/gpu_ragged_cluster.txt 2>&1; echo "== gpu_ragged cluster rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_ragged_cluster.txt | head -20 >> $S
verify() {  # verify DTYPE [ARGS]: skipped past 430 s of the call (the call's limit is 600 s)
  [ $SECONDS -lt 430 ] || { echo "== verify $* skipped at $SECONDS s" >> $S; return; }
  local d=$1; shift
  s=$SECONDS; timeout 150 $B/rtopk verify cuda --quick --dtype $d "$@" > $L/verify_$d$#.txt 2>&1; echo "== verify $d $* rc=$? $((SECONDS-s)) s" >> $S; grep -E "verify cuda on|MISMATCH|rror" $L/verify_$d$#.txt | head -3 | cut -c1-600 >> $S
}
verify float32
SHAPES="1x32768:1024 1x49152:2048 1x65536:512 1x100000:2048 1x100000:512 1x131072:1024 1x150001:4687 1x163840:2048 1x262144:2048 1x262144:512 1x500000:2048 8x100000:2048 4x262144:1024 16x131072:1024"
for i in 1 2; do
  for c in $SHAPES; do sh=${c%:*}
    timeout 60 $B/rtopk bench cuda --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --reps 20 --json > $L/one_new_${i}_${sh}_${c#*:}.json 2>> $L/one.err
  done
done
$PY $T/one_table.py $L cells > $L/ones.json
s=$SECONDS; timeout 200 $PY bench/torch_topk.py $L/ones.json > $L/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
$PY $T/torch_table.py $L >> $S 2>&1
mkdir -p $L/kr
for i in 1 2; do for b in new old; do
  K=""; [ $b = new ] && K="--kernel-dir devbin/kr"
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_${b}kr
  for c in $SHAPES; do sh=${c%:*}
    timeout 60 $B/rtopk bench cuda --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --reps 20 --json $K > $L/kr/one_${b}_${i}_${sh}_${c#*:}.json 2>> $L/one_kr.err
  done
done; done
echo "## kr" >> $S; $PY $T/one_table.py $L/kr >> $S 2>&1
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_u6
verify float16
verify bfloat16
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_newkr
verify float32 --kernel-dir devbin/kr
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
