set -x
cd results/tmp/sortbench
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv
nvcc -O3 -arch=sm_90 -std=c++17 -o sb sortbench.cu 2>&1 | tail -20
./sb 2>&1 | tee $OUT/sb.txt
