#!/usr/bin/env bash
# call d (from the repository root on the device): the final check of the committed tree
# (devbin/c: its CLI; devbin/wa: its wheel — kernels byte-identical to call c's): rtopk verify
# cuda --quick on float32, float16, bfloat16 and int8 (the GPU against bisect and the
# simulator; every warp family's sum), then bench/dtypes16.py --quick (rtopk against
# torch.topk on the same f32, f16 and bf16 tensors, every case checked equal first).
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
tar xzf devbin/cc.tgz; chmod +x devbin/c/*
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
for t in float32 float16 bfloat16 int8; do
  s=$SECONDS; timeout 130 devbin/c/rtopk verify cuda --quick --dtype $t > $L/verify_$t.txt 2>&1; echo "== verify $t rc=$? $((SECONDS-s)) s" >> $S; grep -iE "identical|differ|mismatch|error|cases" $L/verify_$t.txt | tail -4 >> $S
  [ $SECONDS -gt 430 ] && break
done
PY=/opt/torch/.venv/bin/python3; [ -x $PY ] || PY=python3
$PY -m pip install -q --no-deps --target /tmp/site_new devbin/wa/rtopk-*.whl > $L/pip.txt 2>&1
s=$SECONDS; PYTHONPATH=/tmp/site_new:bench timeout 100 $PY bench/dtypes16.py --quick --reps 15 --out $L/d16 > $L/d16.log 2>&1; echo "== dtypes16 rc=$? $((SECONDS-s)) s" >> $S
sed -n '/elements\/s on 16-bit/,/## rtopk with counts/p' $L/d16/dtypes16.md >> $S 2>/dev/null
grep -c "| ok |" $L/d16/dtypes16.md >> $S 2>/dev/null
cp $L/d16/dtypes16.md $L/d16/dtypes16.json $L/ 2>/dev/null; rm -rf $L/d16
cp $L/device.txt $L/verify_*.txt $L/dtypes16.md $OUT/ 2>/dev/null
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
