#!/usr/bin/env bash
# Call a (1 x H200, from the repository root): devbin/w1 = the hint's window tests at 2^-10,
# 2^-7, 2^-4 of the bracket (this tree); devbin/r3 = b440cb5's build (2^-8, 2^-4). The GPU
# against the simulator and bisect first (every ragged and hinted test), then bench/decode.py
# new and old alternated on the 15 shapes (p = 2 %, then 1 % and 5 %), then the host's time of
# a hot topk_split_rows call by piece (results/cuda/2026-11-30-hint-windows-h200/split_host.py, one rank).
set -uo pipefail
S=$OUT/steps.txt
L=$OUT/logs; mkdir -p $L
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } > $L/device.txt
python3 -m pip install -q --no-deps --target /tmp/wn devbin/w1/rtopk-*.whl >> $S 2>&1
python3 -m pip install -q --no-deps --target /tmp/wo devbin/r3/rtopk-*.whl >> $S 2>&1
chmod +x devbin/w1/gpu_ragged
t() { local name=$1; shift; local s=$SECONDS; "$@" > $L/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s: $(grep -E 'test result|passed|failed' $L/$name.txt | tail -1)" >> $S; }
RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t t gpu_ragged timeout 120 devbin/w1/gpu_ragged --ignored
D="--shape 1x16384:512 --shape 1x32768:2048 --shape 8x32768:2048 --shape 16x16384:512 --shape 64x16384:2048 --shape 64x32768:2048 --shape 64x32768:512 --shape 128x32768:1024 --shape 16x32000:64 --shape 128x32000:1024 --shape 64x128256:50 --shape 8x131072:2048 --shape 128x131072:2048 --shape 1x1048576:2048 --shape 16x1048576:2048"
i=0
for b in new old new old; do
  i=$((i+1)); w=/tmp/wn; [ $b = old ] && w=/tmp/wo
  extra="--no-lengths"; [ $i = 1 ] && extra=""
  s=$SECONDS; PYTHONPATH=$w RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b timeout 80 python3 bench/decode.py $D --steps 16 $extra --out $L/decode_${b}_$i.json > $L/decode_${b}_$i.txt 2>&1
  echo "== decode_${b}_$i rc=$? $((SECONDS-s)) s" >> $S
done
for b in new old; do
  w=/tmp/wn; [ $b = old ] && w=/tmp/wo
  s=$SECONDS; PYTHONPATH=$w RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b timeout 80 python3 bench/decode.py $D --drift 0.01 0.05 --steps 16 --no-lengths --out $L/drift_$b.json > $L/drift_$b.txt 2>&1
  echo "== drift_$b rc=$? $((SECONDS-s)) s" >> $S
done
s=$SECONDS; PYTHONPATH=/tmp/wn RTOPK_CUDA_PTX_CACHE=/tmp/ptx_new NCCL_NVLS_ENABLE=0 timeout 60 torchrun --standalone --nproc-per-node 1 results/cuda/2026-11-30-hint-windows-h200/split_host.py --out $L/split_host.json > $L/split_host.txt 2>&1
echo "== split_host rc=$? $((SECONDS-s)) s" >> $S
cat $L/split_host.txt >> $S
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
echo "== end" >> $S
