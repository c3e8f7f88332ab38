#!/usr/bin/env bash
# call e (from the repository root on the device): the committed build's GPU tests
# (devbin/rx4: the radix select against bisect and warp-sim, 16-bit and integer rows in every
# strategy, every strategy and every step kind of the program; rtopk's gpu_ragged tests) and
# the package's CUDA tests on its wheel (devbin/w9).
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/le; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
chmod +x devbin/rx4/*
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
s=$SECONDS; timeout 240 devbin/rx4/gpu --include-ignored --test-threads 1 radix_rows sixteen_bit_rows integer_rows every_strategy every_step_kind > $L/gpu_tests.txt 2>&1; echo "== gpu tests rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result" $L/gpu_tests.txt >> $S
python3 -m pip install -q --no-deps --target /tmp/site devbin/w9/rtopk-*.whl > $L/pip.txt 2>&1
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
s=$SECONDS; timeout 150 devbin/rx4/gpu_ragged --include-ignored > $L/gpu_ragged.txt 2>&1; echo "== gpu_ragged rc=$? $((SECONDS-s)) s" >> $S; grep -E "test result" $L/gpu_ragged.txt >> $S
s=$SECONDS; (cd crates/rtopk-py && timeout 330 python3 -m pytest -q -rs -p no:cacheprovider tests -k "cuda and not verify_quick" > $L/pytest_cuda.txt 2>&1); echo "== pytest cuda rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/pytest_cuda.txt >> $S
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
