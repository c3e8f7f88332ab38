#!/usr/bin/env bash
# Call c (1 x H200, from the repository root): devbin/w3 = the final build (the window shifts
# generated from topk-ref's HINT_WINDOW_SHIFTS); devbin/r3 = b440cb5's build. Correctness and
# torch.topk's time in one call: every ragged and hinted GPU test (the GPU against the
# simulator and bisect), bench/decode.py new and old alternated twice on the 15 shapes
# (p = 2 %, torch.topk timed beside every step), and one row of 2^20 over 64 steps each.
set -uo pipefail
S=$OUT/steps.txt
L=$OUT/logs; mkdir -p $L
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } > $L/device.txt
python3 -m pip install -q --no-deps --target /tmp/wn devbin/w3/rtopk-*.whl >> $S 2>&1
python3 -m pip install -q --no-deps --target /tmp/wo devbin/r3/rtopk-*.whl >> $S 2>&1
chmod +x devbin/w3/gpu_ragged
t() { local name=$1; shift; local s=$SECONDS; "$@" > $L/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s: $(grep -E 'test result|passed|failed' $L/$name.txt | tail -1)" >> $S; }
RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t t gpu_ragged timeout 120 devbin/w3/gpu_ragged --ignored
D="--shape 1x16384:512 --shape 1x32768:2048 --shape 8x32768:2048 --shape 16x16384:512 --shape 64x16384:2048 --shape 64x32768:2048 --shape 64x32768:512 --shape 128x32768:1024 --shape 16x32000:64 --shape 128x32000:1024 --shape 64x128256:50 --shape 8x131072:2048 --shape 128x131072:2048 --shape 1x1048576:2048 --shape 16x1048576:2048"
i=0
for b in new old new old; do
  i=$((i+1)); w=/tmp/wn; [ $b = old ] && w=/tmp/wo
  extra="--no-lengths"; [ $i = 1 ] && extra=""
  s=$SECONDS; PYTHONPATH=$w RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b timeout 80 python3 bench/decode.py $D --steps 16 $extra --out $L/decode_${b}_$i.json > $L/decode_${b}_$i.txt 2>&1
  echo "== decode_${b}_$i rc=$? $((SECONDS-s)) s" >> $S
done
sed -n 1,40p $L/decode_new_1.txt >> $S
for b in new old; do
  w=/tmp/wn; [ $b = old ] && w=/tmp/wo
  s=$SECONDS; PYTHONPATH=$w RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b timeout 60 python3 bench/decode.py --shape 1x1048576:2048 --steps 64 --no-lengths --out $L/long_$b.json > $L/long_$b.txt 2>&1
  echo "== long_$b rc=$? $((SECONDS-s)) s" >> $S
  sed -n 3p $L/long_$b.txt >> $S
done
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
echo "== end" >> $S
