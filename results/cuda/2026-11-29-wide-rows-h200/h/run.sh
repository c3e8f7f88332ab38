#!/bin/bash
# Compile each variant with nvcc (the runtime's NVRTC options) and run it: the wide-rows kernels
# alone on 2^18 rows, M = 256/512/768, k = 16/64/128, CUDA events, median of 30.
cd devbin/h
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt; nvcc --version | tail -2 >> $OUT/device.txt
for f in *.cu; do
  ( nvcc -O3 -arch=sm_90 --fmad=false --ftz=false --prec-sqrt=true --prec-div=true -std=c++17 -Xptxas -v -o ${f%.cu} $f > $OUT/build_${f%.cu}.txt 2>&1 ) &
done
wait
for f in *.cu; do b=${f%.cu}; [ -x $b ] && timeout 60 ./$b $b >> $OUT/times.txt 2>&1 || echo "$b failed" >> $OUT/times.txt; done
grep -h "registers\|spill" $OUT/build_*.txt | sort | uniq -c > $OUT/regs.txt
