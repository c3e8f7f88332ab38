#!/usr/bin/env bash
# call b (from the repository root on the device): the block sort in registers (devbin/w2: the
# rtopk binary and the wheel of this tree, its sm_90 units) against the tree before it (old: the
# same wheel with 634486e's native module and sort_rows units, devbin/w1old), in one call.
set -uo pipefail
R=results/cuda/2026-11-30-block-sort-h200
S=$OUT/steps.txt; L=/tmp/lb; mkdir -p $L
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $OUT/device.txt
chmod +x devbin/w2/rtopk
pip install -q --no-deps --target /tmp/wn devbin/w2/*.whl > /dev/null 2>&1
pip install -q --no-deps --target /tmp/wo devbin/w2/*.whl > /dev/null 2>&1
xz -dc devbin/w1old/_native.abi3.so.xz > /tmp/wo/rtopk/_native.abi3.so
tar xzf devbin/w1old/sort_rows_units.tgz -C /tmp/wo/rtopk/_units/sm_90
export RTOPK_CUDA_UNITS=/tmp/wn/rtopk/_units
# correctness, three at once: verify f32 and bf16 (GPU against bisect and the simulator), the package's CUDA tests
s=$SECONDS
(timeout 280 devbin/w2/rtopk verify cuda --quick --dtype float32 > $L/verify_f32.txt 2>&1; echo "rc=$?" >> $L/verify_f32.txt) &
(timeout 280 devbin/w2/rtopk verify cuda --quick --dtype bfloat16 > $L/verify_bf16.txt 2>&1; echo "rc=$?" >> $L/verify_bf16.txt) &
(PYTHONPATH=/tmp/wn timeout 280 python3 -m pytest -q -x crates/rtopk-py/tests -k "cuda and not verify_quick" -p no:cacheprovider > $L/pytest_cuda.txt 2>&1; echo "rc=$?" >> $L/pytest_cuda.txt) &
wait
echo "== correctness $((SECONDS-s)) s" >> $S
for f in verify_f32 verify_bf16 pytest_cuda; do echo "-- $f" >> $S; tail -4 $L/$f.txt >> $S; done
# the sort kernel alone, cold caches, old then new
for b in wo wn; do
  PYTHONPATH=/tmp/$b timeout 120 ncu --target-processes all --metrics gpu__time_duration.sum --cache-control all python3 $R/p.py > $L/ncu_$b.txt 2>&1; echo "== ncu $b rc=$?" >> $S
done
# sorted calls, old / new / old / new
cd bench
for r in 1 2; do for b in wo wn; do
  PYTHONPATH=/tmp/$b timeout 120 python3 sort_step.py --grid few-rows --out $L/sort_${b}_$r.json --reps 15 > /dev/null 2>> $S; echo "== sort_step $b $r rc=$?" >> $S
done; done
cd ..
for b in wo wn; do
  mkdir -p $L/jax_$b; PYTHONPATH=/tmp/$b timeout 150 python3 bench/jax_topk.py --grid vocab --out $L/jax_$b > $L/jax_$b.txt 2>&1; echo "== jax $b rc=$?" >> $S
done
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
