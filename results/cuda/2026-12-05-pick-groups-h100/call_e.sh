#!/bin/bash
# On the device, from the repository root ($OUT the call's output folder): the landed build p9
# through the package's CUDA tests (verify_quick left out: it asks for iteration counts, which
# pick rows never take).
set -u
PY=/opt/torch/.venv/bin/python3
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/wh /tmp/bins9 $OUT
step() { echo "$1 rc=$2 $3 s" >> $OUT/steps.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
tar xJf devbin/pkp9.tar.xz -C /tmp/wh
$PY -m pip install -q --no-deps --target /tmp/site_p9 /tmp/wh/p9/*.whl
tar xJf devbin/bins9.tar.xz -C /tmp/bins9
s=$SECONDS; RTOPK_BIN=/tmp/bins9/rtopk PYTHONPATH=/tmp/site_p9:crates/rtopk-py/tests timeout 450 $PY -m pytest -q crates/rtopk-py/tests -k "cuda and not verify_quick" -p no:cacheprovider > $OUT/pytest_cuda.txt 2>&1
step "pytest -k cuda: $(tail -1 $OUT/pytest_cuda.txt)" $? $((SECONDS-s))
