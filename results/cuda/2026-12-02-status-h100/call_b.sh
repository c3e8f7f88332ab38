#!/usr/bin/env bash
# Usage (from the repository root on the device): call_b.sh — record.md's second call: the same
# wheel (devbin/w1, carried as devbin/pkw1.tar.xz): issue 31's decode benchmark
# (bench/decode.py, its default indexer and sampler shapes, 8 steps) and issue 35's 16-bit table
# (bench/dtypes16.py --quick: N = 2^20 of the RTop-K grid), both against torch.topk in the
# same call.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
tar xJf devbin/pkw1.tar.xz -C devbin
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
$PY -m pip install -q --no-deps --target /tmp/site_w1 devbin/w1/*.whl > $L/pip.txt 2>&1
export PYTHONPATH=/tmp/site_w1 RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w1
s=$SECONDS; timeout 200 $PY bench/decode.py --steps 8 --out $L/decode.json > $L/decode.txt 2>&1; echo "== decode rc=$? $((SECONDS-s)) s" >> $S; cat $L/decode.txt >> $S
s=$SECONDS; timeout 200 $PY bench/dtypes16.py --quick --out $L/dtypes16 > $L/dtypes16.txt 2>&1; echo "== dtypes16 rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/dtypes16.txt >> $S
cp $L/dtypes16/dtypes16.md $L/decode.json $OUT/ 2>/dev/null
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
