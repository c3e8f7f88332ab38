#!/usr/bin/env bash
# call f (from the repository root on the device): a 16-bit row's value-phase test compares its
# packed words with ceil16(thres) itself (count_at_value, count_ge_value), skipping the key's
# round trip — devbin/v (the CLI) and devbin/wv (the wheel) against 7278bea's devbin/wa:
# rtopk verify cuda --quick on float16 and bfloat16 (their counted searches take the value
# phase), then bench/dtypes16.py --quick on both wheels, alternated twice.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/lf; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
tar xzf devbin/v.tgz; chmod +x devbin/v/*
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
for t in float16 bfloat16; do
  s=$SECONDS; timeout 130 devbin/v/rtopk verify cuda --quick --dtype $t > $L/verify_$t.txt 2>&1; echo "== verify $t rc=$? $((SECONDS-s)) s" >> $S; head -1 $L/verify_$t.txt | cut -c1-300 >> $S
done
PY=/opt/torch/.venv/bin/python3; [ -x $PY ] || PY=python3
$PY -m pip install -q --no-deps --target /tmp/site_new devbin/wv/rtopk-*.whl > $L/pip.txt 2>&1
$PY -m pip install -q --no-deps --target /tmp/site_old devbin/wa/rtopk-*.whl >> $L/pip.txt 2>&1
for i in 1 2; do
  for b in new old; do
    s=$SECONDS; PYTHONPATH=/tmp/site_$b:bench timeout 100 $PY bench/dtypes16.py --quick --reps 15 --out $L/d16_${b}_$i > $L/d16_${b}_$i.log 2>&1; echo "== dtypes16 $b $i rc=$? $((SECONDS-s)) s" >> $S
    cp $L/d16_${b}_$i/dtypes16.md $L/dtypes16_${b}_$i.md; cp $L/d16_${b}_$i/dtypes16.json $L/dtypes16_${b}_$i.json; rm -rf $L/d16_${b}_$i
  done
  [ $SECONDS -gt 420 ] && break
done
cp $L/device.txt $L/verify_*.txt $L/dtypes16_*.md $OUT/ 2>/dev/null
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
