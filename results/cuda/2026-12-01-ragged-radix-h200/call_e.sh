#!/usr/bin/env bash
# call e (from the repository root on the device): the committed build's wheel (devbin/q3) —
# ragged radix selects on CUDA tensors, eager and in a CUDA graph, against the package's CPU
# answer (py_check.py), and the package's ragged tests on CUDA.
set -uo pipefail
R=results/cuda/2026-12-01-ragged-radix-h200
S=$OUT/steps.txt; L=/tmp/le; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
PY=/opt/torch/.venv/bin/python3
$PY -m pip install --no-deps --target /tmp/site_q3 devbin/q3/*.whl > $L/pip.txt 2>&1
s=$SECONDS; PYTHONPATH=/tmp/site_q3 timeout 200 $PY $R/py_check.py > $L/py_check.txt 2>&1; echo "== py_check rc=$? $((SECONDS-s)) s" >> $S; cat $L/py_check.txt >> $S
s=$SECONDS; PYTHONPATH=/tmp/site_q3 timeout 200 $PY -m pytest -q -p no:cacheprovider crates/rtopk-py/tests/test_ragged.py > $L/pytest_ragged.txt 2>&1; echo "== pytest test_ragged rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/pytest_ragged.txt >> $S
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
