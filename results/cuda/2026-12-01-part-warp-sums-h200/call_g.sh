#!/usr/bin/env bash
# call g (from the repository root on the device): the committed form of call f's change —
# only f16 rows count at the value itself, bf16 and f32 units compile as at 7278bea —
# devbin/wx (the wheel) against 7278bea's devbin/wa: bench/dtypes16.py --quick on both (every
# case checked equal to torch.topk first).
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/lg; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
PY=/opt/torch/.venv/bin/python3; [ -x $PY ] || PY=python3
$PY -m pip install -q --no-deps --target /tmp/site_new devbin/wx/rtopk-*.whl > $L/pip.txt 2>&1
$PY -m pip install -q --no-deps --target /tmp/site_old devbin/wa/rtopk-*.whl >> $L/pip.txt 2>&1
for b in new old; do
  s=$SECONDS; PYTHONPATH=/tmp/site_$b:bench timeout 70 $PY bench/dtypes16.py --quick --reps 15 --out $L/d16_$b > $L/d16_$b.log 2>&1; echo "== dtypes16 $b rc=$? $((SECONDS-s)) s" >> $S
  cp $L/d16_$b/dtypes16.md $L/dtypes16_$b.md; cp $L/d16_$b/dtypes16.json $L/dtypes16_$b.json; rm -rf $L/d16_$b
done
cp $L/device.txt $L/dtypes16_*.md $OUT/ 2>/dev/null
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
