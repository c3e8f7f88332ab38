#!/usr/bin/env bash
# call a (from the repository root on the device: bash
# results/cuda/2026-12-01-radix16-sample-h200/a/call.sh): the wheel whose sampled radix tier
# takes f16 and bf16 rows (devbin/n2) against the wheel before it (devbin/s4, d634b16's gate),
# gate16s.py alternated twice, torch.topk in the last run; table.py.
set -uo pipefail
R=results/cuda/2026-12-01-radix16-sample-h200
S=$OUT/steps.txt; L=/tmp/l16; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
PY=/opt/torch/.venv/bin/python3; [ -x $PY ] || PY=python3
$PY -m pip install -q --no-deps --target /tmp/site_new devbin/n2/rtopk-*.whl > $L/pip.txt 2>&1
$PY -m pip install -q --no-deps --target /tmp/site_old devbin/s4/rtopk-*.whl >> $L/pip.txt 2>&1
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
for i in 1 2; do
  for b in new old; do
    t=""; [ $i = 2 ] && [ $b = new ] && t=--torch
    s=$SECONDS; PYTHONPATH=/tmp/site_$b timeout 200 $PY $R/gate16s.py $L/${b}_$i.json --reps 15 $t > $L/${b}_$i.log 2>&1; echo "== $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
done
$PY $R/table.py $L > $L/table.md 2>&1; cat $L/table.md >> $S
cp $L/device.txt $L/table.md $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
