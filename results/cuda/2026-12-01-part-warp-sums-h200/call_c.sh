#!/usr/bin/env bash
# call c (from the repository root on the device): part-warp sums shuffled under __activemask()
# (devbin/c: the CLI, rtopk-cuda's gpu and rtopk's gpu_ragged test binaries; devbin/wa: the
# wheel) against da8fb2d (devbin/ho, devbin/wh): the GPU tests that run every warp family
# (every strategy, every step kind, 16-bit and integer rows) and gpu_ragged; the rtopk and
# appendix-b grids on both CLIs alternated twice; bench/dtypes16.py --quick on both wheels.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/lc; mkdir -p $L
R=results/cuda/2026-12-01-part-warp-sums-h200
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
tar xzf devbin/cc.tgz; chmod +x devbin/c/* devbin/ho/*
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
s=$SECONDS; timeout 200 devbin/c/gpu --include-ignored --test-threads 1 sixteen_bit_rows integer_rows every_strategy every_step_kind > $L/gpu_tests.txt 2>&1; echo "== gpu tests rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_tests.txt >> $S
s=$SECONDS; timeout 60 devbin/c/gpu_ragged --include-ignored > $L/gpu_ragged.txt 2>&1; echo "== gpu_ragged rc=$? $((SECONDS-s)) s" >> $S; grep -E "test result|panicked" $L/gpu_ragged.txt >> $S
G=rtopk,appendix-b
for i in 1 2; do
  for b in c ho; do
    s=$SECONDS; timeout 60 devbin/$b/rtopk bench cuda --grid $G --reps 10 --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_ho_$i.json $L/grid_c_$i.json > $L/ab_$i.txt 2>&1; tail -3 $L/ab_$i.txt | cut -c1-1500 >> $S
done
PY=/opt/torch/.venv/bin/python3; [ -x $PY ] || PY=python3
$PY -m pip install -q --no-deps --target /tmp/site_new devbin/wa/rtopk-*.whl > $L/pip.txt 2>&1
$PY -m pip install -q --no-deps --target /tmp/site_old devbin/wh/rtopk-*.whl >> $L/pip.txt 2>&1
for b in new old; do
  s=$SECONDS; PYTHONPATH=/tmp/site_$b:bench timeout 150 $PY bench/dtypes16.py --quick --reps 15 --out $L/d16_$b > $L/d16_$b.log 2>&1; echo "== dtypes16 $b rc=$? $((SECONDS-s)) s" >> $S
  sed -n '/elements\/s on 16-bit/,/## rtopk with counts/p' $L/d16_$b/dtypes16.md >> $S 2>/dev/null
  cp $L/d16_$b/dtypes16.md $L/dtypes16_$b.md; cp $L/d16_$b/dtypes16.json $L/dtypes16_$b.json
done
rm -rf $L/d16_new $L/d16_old
cp $L/device.txt $L/dtypes16_*.md $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
