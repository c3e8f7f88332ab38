#!/usr/bin/env bash
# 16-bit M = 512: quarter-warp rows (N = 2^18, EPL 64) against half-warp rows (N = 2^17 < 1024
# rows per SM, EPL 32), kernel time per row by Nsight Compute; four running sums in the packed
# count; bench/dtypes16.py --quick.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
out=$OUT/r; mkdir -p $out
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $out/device.txt
python3 -m pip install -q --no-deps --target /tmp/site devbin/rtopk-*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site
for dt in float16 bfloat16; do for n in 131072 262144; do for k in 16 64 128; do
  ncu --clock-control none --kernel-name regex:"rtopk_(warp|half|quarter)_rows" --launch-skip 2 --launch-count 1 \
    --metrics gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum \
    python3 devbin/prof16.py $dt $n 512 $k > $out/q_${dt}_${n}_$k.txt 2>&1
  echo "$dt n=$n k=$k $(grep -E 'rtopk_|gpu__time|registers|warps_active|inst_executed' $out/q_${dt}_${n}_$k.txt | awk '{print $1, $NF}' | tr '\n' ' ')"
done; done; done
timeout 120 python3 bench/dtypes16.py --out $out/dtypes16 --reps 15 --quick > $out/dtypes16.txt 2>&1; sed -n '/elements/,/^$/p' $out/dtypes16/dtypes16.md | head -14
cd $OUT && tar czf r.tgz r && rm -rf r
