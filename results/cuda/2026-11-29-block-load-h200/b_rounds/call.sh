#!/bin/bash
set -u
B=devbin/exp/rtopk
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
for s in "1 16384 512" "1 32768 2048" "16 16384 512" "1 4096 512" "1 8192 512" "128 32768 1024" "1024 16384 256" "1 163840 2048" "1 1048576 2048" "64 128256 50"; do
  set -- $s
  a=$($B bench cuda --n $1 --m $2 -k $3 --reps 60 2>&1 | grep -E "exact|error" | awk '{print $(NF-6), $(NF-5)}')
  b=$($B bench cuda --n $1 --m $2 -k $3 --reps 60 --kernel-dir devbin/stages/kernels3 2>&1 | grep -E "exact|error" | awk '{print $(NF-6), $(NF-5)}')
  echo "$s stock $a coalesced $b" >> $OUT/ab.txt
done
for s in "1 16384 512" "1 32768 2048" "1 4096 512" "1024 16384 256"; do
  set -- $s
  for v in kernels kernels2; do
    st=$($B bench cuda --n $1 --m $2 -k $3 --reps 10 --kernel-dir devbin/stages/$v 2>&1 | grep STAGES | tail -3 | sed 's/STAGES//' | tr '\n' '|')
    echo "$s $v :: $st" >> $OUT/stages.txt
  done
done
