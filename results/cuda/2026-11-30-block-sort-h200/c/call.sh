#!/usr/bin/env bash
# call c (from the repository root on the device): commit 784e5e0 (devbin/w3: the rtopk binary
# and the wheel with its sm_90 units; the block sort in registers from 2048 positions) against
# 634486e (devbin/w1/rtopk: every step of the block sort through shared memory), in one call.
set -uo pipefail
R=results/cuda/2026-11-30-block-sort-h200
S=$OUT/steps.txt; L=/tmp/lc; mkdir -p $L
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $OUT/device.txt
chmod +x devbin/w3/rtopk devbin/w1/rtopk
pip install -q --no-deps --target /tmp/wn devbin/w3/*.whl > /dev/null 2>&1
export RTOPK_CUDA_UNITS=/tmp/wn/rtopk/_units RTOPK_CUDA_PTX_CACHE=/tmp/ptxc
s=$SECONDS
(timeout 280 devbin/w3/rtopk verify cuda --quick --dtype float32 > $L/verify_f32.txt 2>&1; echo "rc=$?" >> $L/verify_f32.txt) &
(PYTHONPATH=/tmp/wn timeout 280 python3 -m pytest -q -x crates/rtopk-py/tests -k "cuda and not verify_quick" -p no:cacheprovider > $L/pytest_cuda.txt 2>&1; echo "rc=$?" >> $L/pytest_cuda.txt) &
wait
echo "== correctness $((SECONDS-s)) s" >> $S
for f in verify_f32 pytest_cuda; do echo "-- $f" >> $S; tail -4 $L/$f.txt >> $S; done
grep "sort_rows" $L/verify_f32.txt >> $S
PYTHONPATH=/tmp/wn timeout 120 ncu --target-processes all --metrics gpu__time_duration.sum --cache-control all python3 $R/p.py > $L/ncu_new.txt 2>&1; echo "== ncu rc=$?" >> $S
# sorted calls of k past 1024 on few rows, old / new / old / new (events, rotated inputs)
for r in 1 2; do for b in w1 w3; do
  for s2 in 1:262144 8:32768 64:16384 1:1048576; do n=${s2%%:*}; m=${s2##*:}
    devbin/$b/rtopk bench cuda --n $n --m $m -k 1500,2048,3000,4096 --sorted --reps 30 --json > $L/bench_${b}_${r}_${n}x${m}.json 2> $L/bench_${b}_${r}_${n}x${m}.err
  done
done; done
echo "== bench done" >> $S
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
