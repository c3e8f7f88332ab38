#!/usr/bin/env bash
# call g (one H200, from the repository root): the package's CUDA tests on 828f3b7's wheel
# (devbin/w7, no shipped units: each kernel unit compiled on first use) — NumPy and torch
# inputs, the custom op, autograd, torch.compile, CUDA graphs, ragged rows and hints, JAX.
set -uo pipefail
o=/tmp/lg; mkdir -p $o
nvidia-smi -L > $o/device.txt; date -u >> $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/site devbin/w7/rtopk-*.whl > $o/pip.txt 2>&1
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
s=$SECONDS; (cd crates/rtopk-py && timeout 480 python3 -m pytest -q -rs -p no:cacheprovider tests -k "cuda and not verify_quick" > $o/pytest_cuda.txt 2>&1); echo "== pytest cuda rc=$? $((SECONDS-s)) s" >> $OUT/steps.txt
tail -5 $o/pytest_cuda.txt >> $OUT/steps.txt
cp $o/device.txt $OUT/
tar czf $OUT/logs.tgz -C $o .
