#!/usr/bin/env bash
# call e (one H200, from the repository root): the committed tree's GPU tests of splits —
# rtopk-cuda's `gpu` test binary (devbin/t1/gpu: `cargo test -p rtopk-cuda --release --test gpu
# --no-run`): `many_rows_that_take_the_floor_match_bisect` (chunk-major splits that take the
# floor by their size, against bisect) and
# `every_step_kind_of_the_program_matches_bisect_and_the_simulators_program`; then the
# package's CUDA tests on the committed wheel (devbin/w8): NumPy and torch inputs, the custom
# op, autograd, torch.compile, CUDA graphs, ragged rows and hints, JAX.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/lg; mkdir -p $o; S=$OUT/steps.txt
nvidia-smi -L > $o/device.txt; date -u >> $o/device.txt
chmod +x devbin/t1/gpu
s=$SECONDS; timeout 200 devbin/t1/gpu --ignored --test-threads 1 many_rows_that_take_the_floor every_step_kind > $o/gpu_tests.txt 2>&1; echo "== gpu tests rc=$? $((SECONDS-s)) s" >> $S
grep -E "^test |test result" $o/gpu_tests.txt >> $S
python3 -m pip install -q --no-deps --target /tmp/site devbin/w8/rtopk-*.whl > $o/pip.txt 2>&1
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
s=$SECONDS; (cd crates/rtopk-py && timeout 330 python3 -m pytest -q -rs -p no:cacheprovider tests -k "cuda and not verify_quick" > $o/pytest_cuda.txt 2>&1); echo "== pytest cuda rc=$? $((SECONDS-s)) s" >> $S
tail -5 $o/pytest_cuda.txt >> $S
cp $o/device.txt $OUT/
tar czf $OUT/logs.tgz -C $o .
