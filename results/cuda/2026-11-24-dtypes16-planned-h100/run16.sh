#!/usr/bin/env bash
# 16-bit M = 256: quarter-warp rows (N = 2^18, EPL 32) against half-warp rows (N = 2^17, EPL 16),
# kernel time by Nsight Compute, k = 16 ... 128.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
out=$OUT/r; mkdir -p $out
python3 -m pip install -q --no-deps --target /tmp/site devbin/rtopk-*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site
for dt in float16 bfloat16; do for n in 131072 262144; do for k in 16 32 64; do
  ncu --clock-control none --kernel-name regex:"rtopk_(warp|half|quarter)_rows" --launch-skip 2 --launch-count 1 \
    --metrics gpu__time_duration.sum python3 devbin/prof16.py $dt $n 256 $k > $out/q_${dt}_${n}_$k.txt 2>&1
  echo "$dt n=$n k=$k $(grep -E 'rtopk_|gpu__time' $out/q_${dt}_${n}_$k.txt | awk '{print $1, $NF}' | tr '\n' ' ')"
done; done; done
cd $OUT && tar czf r.tgz r && rm -rf r
