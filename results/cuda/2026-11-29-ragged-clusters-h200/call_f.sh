#!/usr/bin/env bash
# Call f (1 x H200, from the repository root): the final build (devbin/r3) once more, its
# correctness and torch.topk's time in one call: the cluster GPU test, the ragged and hinted
# GPU tests, and bench/decode.py on the 15 shapes (torch.topk timed beside every step).
set -uo pipefail
S=$OUT/steps.txt
L=$OUT/logs; mkdir -p $L
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } > $L/device.txt
python3 -m pip install -q --no-deps --target /tmp/w3 devbin/r3/rtopk-*.whl >> $S 2>&1
chmod +x devbin/r3/gpu devbin/r3/gpu_ragged
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_r3
t() { local name=$1; shift; local s=$SECONDS; "$@" > $L/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s: $(grep -E 'test result|passed|failed' $L/$name.txt | tail -1)" >> $S; }
t gpu_cluster timeout 60 devbin/r3/gpu --ignored cluster
t gpu_ragged timeout 80 devbin/r3/gpu_ragged --ignored ragged_rows_on_the_gpu_equal_the_simulator hinted_rows_on_the_gpu_equal_bisect
D="--shape 1x16384:512 --shape 1x32768:2048 --shape 8x32768:2048 --shape 16x16384:512 --shape 64x16384:2048 --shape 64x32768:2048 --shape 64x32768:512 --shape 128x32768:1024 --shape 16x32000:64 --shape 128x32000:1024 --shape 64x128256:50 --shape 8x131072:2048 --shape 128x131072:2048 --shape 1x1048576:2048 --shape 16x1048576:2048"
s=$SECONDS; PYTHONPATH=/tmp/w3 timeout 100 python3 bench/decode.py $D --steps 16 --out $L/decode.json > $L/decode.txt 2>&1
echo "== decode rc=$? $((SECONDS-s)) s" >> $S
sed -n 1,40p $L/decode.txt >> $S
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
echo "== end" >> $S
