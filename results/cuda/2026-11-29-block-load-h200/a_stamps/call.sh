#!/bin/bash
# Where a few-row block row's time goes: clock64 stamps per stage (a printf variant of
# block_rows.cu via --kernel-dir), the stock kernel's e2e, and ncu's kernel duration.
set -u
B=devbin/base/rtopk
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u +%Y-%m-%dT%H:%MZ; } > $OUT/device.txt
for s in "1 16384 512" "1 16384 64" "1 32768 2048" "16 16384 512" "1 8192 512" "1 4096 512" "128 32768 1024"; do
  set -- $s
  echo "== $s" >> $OUT/e2e.txt
  $B bench cuda --n $1 --m $2 -k $3 --reps 50 2>&1 | tail -3 >> $OUT/e2e.txt
  $B bench cuda --n $1 --m $2 -k $3 --reps 20 --kernel-dir devbin/stages/kernels 2>&1 | grep STAGES | tail -15 > $OUT/stages_$1_$2_$3.txt
  timeout 60 ncu --metrics gpu__time_duration.sum --cache-control all -k regex:rtopk --launch-skip 3 --launch-count 5 $B bench cuda --n $1 --m $2 -k $3 --reps 5 2>&1 | grep -E "rtopk_|gpu__time" >> $OUT/ncu.txt
done
cd $OUT && tar czf logs.tgz stages_* && rm stages_*
