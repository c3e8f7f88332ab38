#!/usr/bin/env bash
# call a (from the repository root on the device): the radix16 search's first build (devbin/wr1,
# the wheel) against da8fb2d's (devbin/wh): check16.py on the new one (the GPU against the CPU
# bisect, 16-bit rows built to break it), then bench/dtypes16.py --quick on both, alternated.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/la; mkdir -p $L
R=results/cuda/2026-12-01-radix16-h200
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
PY=/opt/torch/.venv/bin/python3; [ -x $PY ] || PY=python3
$PY -m pip install -q --no-deps --target /tmp/site_new devbin/wr1/rtopk-*.whl > $L/pip.txt 2>&1
$PY -m pip install -q --no-deps --target /tmp/site_old devbin/wh/rtopk-*.whl >> $L/pip.txt 2>&1
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
s=$SECONDS; PYTHONPATH=/tmp/site_new timeout 200 $PY $R/check16.py --quick > $L/check16.txt 2>&1; echo "== check16 rc=$? $((SECONDS-s)) s" >> $S; tail -30 $L/check16.txt >> $S
for i in 1 2; do
  for b in new old; do
    s=$SECONDS; PYTHONPATH=/tmp/site_$b:bench timeout 150 $PY bench/dtypes16.py --quick --reps 15 --out $L/d16_${b}_$i > $L/d16_${b}_$i.log 2>&1; echo "== dtypes16 $b $i rc=$? $((SECONDS-s)) s" >> $S
    sed -n '/elements\/s on 16-bit/,/## rtopk with counts/p' $L/d16_${b}_$i/dtypes16.md >> $S 2>/dev/null
  done
  [ $SECONDS -gt 480 ] && break
done
cp -r $L/* $OUT/ 2>/dev/null
echo "== end $SECONDS s" >> $S
