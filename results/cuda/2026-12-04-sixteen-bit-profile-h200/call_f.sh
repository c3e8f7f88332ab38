#!/bin/bash
# On the device, from the repository root: bench/dtypes16.py --quick on w28 (the commit that
# lands words_ge's one logic op a word).
set -u
PY=/opt/torch/.venv/bin/python3
mkdir -p /tmp/wh $OUT/f
tar xJf devbin/pkw28.tar.xz -C /tmp/wh
$PY -m pip install -q --no-deps --target /tmp/site_w28 /tmp/wh/w28/*.whl
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/f/device.txt
s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w28 PYTHONPATH=/tmp/site_w28:bench timeout 150 $PY bench/dtypes16.py --quick --out $OUT/f/dtypes16_w28 > $OUT/f/dtypes16_w28.txt 2>&1
echo "dtypes16 w28 rc=$? $((SECONDS-s)) s" >> $OUT/f/steps.txt
cd $OUT && tar czf f_all.tgz f && rm -rf f
