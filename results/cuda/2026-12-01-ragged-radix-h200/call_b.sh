#!/usr/bin/env bash
# call b (from the repository root on the device): the ragged radix select's correctness on the
# new build (devbin/q1): the gpu_ragged tests (the new radix one, then the others), rtopk-cuda's
# radix GPU tests, the CLI's ragged radix selects against bisect (f32 and f16) and under
# compute-sanitizer memcheck and racecheck.
set -uo pipefail
R=results/cuda/2026-12-01-ragged-radix-h200
S=$OUT/steps.txt; L=/tmp/lb; mkdir -p $L /tmp/in
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
B=devbin/q1; chmod +x $B/rtopk $B/gpu_ragged $B/gpu
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
s=$SECONDS; timeout 200 $B/gpu_ragged --ignored --test-threads 1 radix > $L/gpu_ragged_radix.txt 2>&1; echo "== gpu_ragged radix rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_ragged_radix.txt | head >> $S
/opt/torch/.venv/bin/python3 $R/gen_ragged.py /tmp/in >> $S 2>&1
for c in one five; do for t in x x16; do
  for a in cuda bisect; do
    s=$SECONDS; timeout 60 $B/rtopk select --algo $a --input /tmp/in/${c}_$t.npy --lengths /tmp/in/${c}_len.npy --k-per-row /tmp/in/${c}_k.npy --values /tmp/o_${a}_${c}_${t}_v.npy --indices /tmp/o_${a}_${c}_${t}_i.npy --threshold /tmp/o_${a}_${c}_${t}_t.npy > $L/sel_${a}_${c}_$t.txt 2>&1; echo "== select $a $c $t rc=$? $((SECONDS-s)) s" >> $S
  done
  /opt/torch/.venv/bin/python3 $R/cmp_npy.py /tmp/o_cuda_${c}_$t /tmp/o_bisect_${c}_$t >> $S 2>&1
done; done
for tool in memcheck racecheck; do for c in one five; do
  s=$SECONDS; f=$L/san_${tool}_$c.log
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/rtopk select --algo cuda --input /tmp/in/${c}_x.npy --lengths /tmp/in/${c}_len.npy --k-per-row /tmp/in/${c}_k.npy --values /tmp/sv.npy --indices /tmp/si.npy > $f 2>&1
  echo "== $tool $c rc=$? $((SECONDS-s)) s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1)" >> $S
done; done
s=$SECONDS; timeout 150 $B/gpu --ignored --test-threads 1 radix > $L/gpu_radix.txt 2>&1; echo "== gpu radix rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_radix.txt | head >> $S
s=$SECONDS; timeout 170 $B/gpu_ragged --ignored --test-threads 1 --skip radix > $L/gpu_ragged_rest.txt 2>&1; echo "== gpu_ragged rest rc=$? $((SECONDS-s)) s" >> $S; grep -E "test result|panicked|FAILED" $L/gpu_ragged_rest.txt | head >> $S
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
