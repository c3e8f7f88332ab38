#!/usr/bin/env bash
# Call b (1 x H200, from the repository root): devbin/r2 = call a's build with the one-pass
# threshold step (threshold_batch), devbin/r = call a's build. Correctness of the threshold
# step on the GPU (every ragged GPU test: thresholds of f32, f16, bf16, integer and 64-bit rows
# against the simulator and bisect; the package's CUDA tests), then the decode benchmark on
# both builds, alternated.
set -uo pipefail
S=$OUT/steps.txt
L=$OUT/logs; mkdir -p $L
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } > $OUT/device.txt
python3 -m pip install -q --no-deps --target /tmp/w2 devbin/r2/rtopk-*.whl >> $S 2>&1
python3 -m pip install -q --no-deps --target /tmp/w1 devbin/r/rtopk-*.whl >> $S 2>&1
chmod +x devbin/r2/rtopk devbin/r2/gpu devbin/r2/gpu_ragged
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_r2
t() { local name=$1; shift; local s=$SECONDS; "$@" > $L/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s: $(grep -E 'test result|passed|failed' $L/$name.txt | tail -1)" >> $S; }
t gpu_ragged timeout 200 devbin/r2/gpu_ragged --ignored
t gpu timeout 150 devbin/r2/gpu --ignored
t pytest_cuda timeout 200 env PYTHONPATH=/tmp/w2 python3 -m pytest crates/rtopk-py/tests/test_torch_cuda.py crates/rtopk-py/tests/test_ragged.py -q -rs -p no:cacheprovider -x
D="--shape 1x16384:512 --shape 1x32768:2048 --shape 8x32768:2048 --shape 16x16384:512 --shape 64x16384:2048 --shape 64x32768:2048 --shape 64x32768:512 --shape 128x32768:1024 --shape 16x32000:64 --shape 128x32000:1024 --shape 64x128256:50 --shape 8x131072:2048 --shape 128x131072:2048 --shape 1x1048576:2048 --shape 16x1048576:2048"
i=0; for b in r2 r r2 r; do i=$((i+1))
  w=/tmp/w2; [ $b = r ] && w=/tmp/w1
  s=$SECONDS; PYTHONPATH=$w RTOPK_CUDA_PTX_CACHE=/tmp/ptx_d$b timeout 120 python3 bench/decode.py $D --steps 16 --no-lengths --out $OUT/decode_${b}_$i.json > $OUT/decode_${b}_$i.txt 2>&1
  echo "== decode $b $i rc=$? $((SECONDS-s)) s" >> $S
done
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
echo "== end" >> $S
