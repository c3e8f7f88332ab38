#!/usr/bin/env bash
# call f (from the repository root on the device: bash
# results/cuda/2026-12-01-radix16-sample-h200/f/call.sh): `above_matches` against RADIX_KEY_BITS
# (devbin/n4: 6e94bb0 with that kernel line and its simulator twin; its `rtopk`, and a wheel whose
# sampled tier takes every 16-bit shape the f32 tier takes) — Nsight Compute on the radix
# kernels of one f16 row of 2^25 at k = 256, devbin/n2's kernels (before) and n4's; f16 rows of
# the tier through `rtopk select --algo cuda` against `--algo bisect`, bytes compared; gate16s.py,
# n4's wheel against n3's (6e94bb0: the old kernel line, the committed tier) alternated twice,
# torch.topk in the last run, on the tier's shapes and past it (table.py).
set -uo pipefail
R=results/cuda/2026-12-01-radix16-sample-h200
S=$OUT/steps.txt; L=/tmp/lf; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/n4/rtopk devbin/n2/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
PY=/opt/torch/.venv/bin/python3; [ -x $PY ] || PY=python3
$PY -c "
import numpy as np
g = np.random.default_rng(16)
x = g.standard_normal((1, 1 << 25), dtype=np.float32).astype(np.float16)
np.save('/tmp/x25.npy', x)
for n, m in [(1, 1 << 24), (2, 1 << 23), (4, 1 << 22)]:
    x = g.standard_normal((n, m), dtype=np.float32).astype(np.float16)
    x.reshape(-1)[:: 4099] = np.float16('nan')
    x.reshape(-1)[7:: 65537] = np.float16('inf')
    np.save(f'/tmp/h{n}.npy', x)
    np.save(f'/tmp/t{n}.npy', np.round(x.astype(np.float32) * 4).astype(np.float16))"
for b in n2 n4; do
  s=$SECONDS; timeout 120 ncu --cache-control all --clock-control base --kernel-name regex:radix \
    --metrics gpu__time_duration.sum,sm__sass_inst_executed.sum,smsp__sass_inst_executed_op_shared_atom.sum \
    devbin/$b/rtopk select --algo cuda --input /tmp/x25.npy -k 256 --values $L/v_$b.npy > $L/ncu_$b.txt 2>&1
  echo "== ncu $b rc=$? $((SECONDS-s)) s" >> $S
  grep -E "rtopk_radix|gpu__time_duration|sm__sass_inst_executed.sum|shared_atom" $L/ncu_$b.txt | sed 's/, Context.*//' >> $S
done
cmp -s $L/v_n2.npy $L/v_n4.npy && echo "== n2 and n4 values equal" >> $S
for n in 1 2 4; do for f in h t; do for k in 256 1024; do for o in "" --smallest; do
  devbin/n4/rtopk plan --n $n --m $((16777216 / n)) -k $k --dtype float16 $o | sed -n 3p | awk '{print $2, $4}' > $L/unit.txt
  devbin/n4/rtopk select --algo bisect --input /tmp/$f$n.npy -k $k $o --values $L/bv.npy --indices $L/bi.npy 2>> $L/err.txt
  devbin/n4/rtopk select --algo cuda --input /tmp/$f$n.npy -k $k $o --values $L/cv.npy --indices $L/ci.npy 2>> $L/err.txt
  same=no; cmp -s $L/cv.npy $L/bv.npy && cmp -s $L/ci.npy $L/bi.npy && same=yes
  echo "== f16 $f $n x $((16777216 / n)) k=$k $o: $(cat $L/unit.txt), equal to bisect: $same" >> $S
done; done; done; done
$PY -m pip install -q --no-deps --target /tmp/site_new devbin/n4/rtopk-*.whl > $L/pip.txt 2>&1
$PY -m pip install -q --no-deps --target /tmp/site_old devbin/n3/rtopk-*.whl >> $L/pip.txt 2>&1
SH=1:8388608:256,1:16777216:256,1:16777216:1024,2:8388608:256,4:4194304:1024,1:33554432:256,1:16777216:64,1:16777216:128,1:67108864:64,1:67108864:256,1:268435456:64,1:268435456:256,1:268435456:1024,4:16777216:256,8:4194304:512,16:4194304:64,16:4194304:256,16:16777216:256
for i in 1 2; do
  for b in new old; do
    t=""; [ $i = 2 ] && [ $b = new ] && t=--torch
    s=$SECONDS; PYTHONPATH=/tmp/site_$b timeout 200 $PY $R/gate16s.py $L/${b}_$i.json --reps 20 $t --shapes $SH > $L/${b}_$i.log 2>&1; echo "== $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
done
$PY $R/table.py $L > $L/table.md 2>&1; cat $L/table.md >> $S
cp $L/device.txt $L/table.md $OUT/ 2>/dev/null
tar czf $OUT/logs.tgz -C $L --exclude '*.npy' .
echo "== end $SECONDS s" >> $S
