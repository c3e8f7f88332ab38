#!/usr/bin/env bash
# call d (from the repository root on the device): the committed tree's build (devbin/f: the
# CLI, rtopk-cuda's gpu and rtopk's gpu_ragged test binaries; devbin/wf: the wheel) — the GPU
# tests (the radix select and the split whose second stage is one against bisect, 16-bit and
# integer rows, every strategy, every step kind of the program), gpu_ragged, the package's CUDA
# tests; then rows narrower than the gate's 2^20 (2^16-2^19, 1-256 rows, k = 1024-16384) by
# the default and forced onto the radix select (--strategy radix), median of 20, normal values.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/f/*
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
s=$SECONDS; timeout 240 devbin/f/gpu --include-ignored --test-threads 1 radix_rows second_stage_is_a_radix sixteen_bit_rows integer_rows every_strategy every_step_kind > $L/gpu_tests.txt 2>&1; echo "== gpu tests rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_tests.txt >> $S
s=$SECONDS; timeout 60 devbin/f/gpu_ragged --include-ignored > $L/gpu_ragged.txt 2>&1; echo "== gpu_ragged rc=$? $((SECONDS-s)) s" >> $S; grep -E "test result|panicked" $L/gpu_ragged.txt >> $S
python3 -m pip install -q --no-deps --target /tmp/site devbin/wf/rtopk-*.whl > $L/pip.txt 2>&1
s=$SECONDS; (cd crates/rtopk-py && PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx timeout 200 python3 -m pytest -q -rs -p no:cacheprovider tests -k "cuda and not verify_quick" > $L/pytest_cuda.txt 2>&1); echo "== pytest cuda rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/pytest_cuda.txt >> $S
s=$SECONDS
for lm in 16 17 18 19; do for ln in 0 1 2 3 4 5 6 7 8; do
  n=$((1 << ln)); m=$((1 << lm)); K=1024,2048,4096,8192
  [ $lm -ge 17 ] && K=$K,16384
  for st in auto radix; do
    f=$L/t_${st}_${n}_${m}.json
    timeout 60 devbin/f/rtopk bench cuda --strategy $st --n $n --m $m -k $K --reps 20 --json > $f 2>> $L/t.err
    python3 -c "import json,sys;print('$st', ' '.join(f\"{c['n']}x{c['m']}:{c['k']}={c['median_ms']*1000:.2f}\" for c in json.load(open('$f'))))" >> $S 2>&1
  done
done; done
echo "== narrow rows $((SECONDS-s)) s" >> $S
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
