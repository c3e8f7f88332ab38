#!/usr/bin/env bash
# call g (from the repository root on the device: bash
# results/cuda/2026-12-01-radix16-sample-h200/g/call.sh): the committed build (devbin/n5:
# 38007c0's rtopk, gpu test binary and wheel) — the radix, 16-bit, cluster and step-kind GPU
# tests against bisect and warp-sim (the nested-radix one splitting its bf16 rows by strategy);
# f16 rows of the tier through `rtopk select --algo cuda` against `--algo bisect`, bytes
# compared; gate16s.py on the tier's shapes and past it, the new wheel against d634b16's
# (devbin/s4) alternated twice, torch.topk in the last run (table.py); the 16-bit grid
# (bench/dtypes16.py --quick, every case checked against torch.topk first).
set -uo pipefail
R=results/cuda/2026-12-01-radix16-sample-h200
S=$OUT/steps.txt; L=/tmp/lg; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/n5/rtopk devbin/n5/gpu
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
s=$SECONDS; timeout 240 devbin/n5/gpu --include-ignored --test-threads 1 radix sixteen_bit_rows cluster every_step_kind > $L/gpu.txt 2>&1; echo "== gpu radix, sixteen_bit_rows, cluster, every_step_kind rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu.txt >> $S
PY=/opt/torch/.venv/bin/python3; [ -x $PY ] || PY=python3
$PY -c "
import numpy as np
g = np.random.default_rng(16)
for n, m in [(1, 1 << 24), (2, 1 << 23), (4, 1 << 22)]:
    x = g.standard_normal((n, m), dtype=np.float32).astype(np.float16)
    x.reshape(-1)[:: 4099] = np.float16('nan')
    x.reshape(-1)[7:: 65537] = np.float16('inf')
    np.save(f'/tmp/h{n}.npy', x)
    np.save(f'/tmp/t{n}.npy', np.round(x.astype(np.float32) * 4).astype(np.float16))"
for n in 1 2 4; do for f in h t; do for k in 256 1024; do for o in "" --smallest; do
  devbin/n5/rtopk plan --n $n --m $((16777216 / n)) -k $k --dtype float16 $o | sed -n 3p | awk '{print $2, $4}' > $L/unit.txt
  devbin/n5/rtopk select --algo bisect --input /tmp/$f$n.npy -k $k $o --values $L/bv.npy --indices $L/bi.npy 2>> $L/err.txt
  devbin/n5/rtopk select --algo cuda --input /tmp/$f$n.npy -k $k $o --values $L/cv.npy --indices $L/ci.npy 2>> $L/err.txt
  same=no; cmp -s $L/cv.npy $L/bv.npy && cmp -s $L/ci.npy $L/bi.npy && same=yes
  echo "== f16 $f $n x $((16777216 / n)) k=$k $o: $(cat $L/unit.txt), equal to bisect: $same" >> $S
done; done; done; done
$PY -m pip install -q --no-deps --target /tmp/site_new devbin/n5/rtopk-*.whl > $L/pip.txt 2>&1
$PY -m pip install -q --no-deps --target /tmp/site_old devbin/s4/rtopk-*.whl >> $L/pip.txt 2>&1
SH=1:8388608:256,1:16777216:128,1:16777216:256,1:16777216:1024,2:8388608:256,4:4194304:1024,1:33554432:256,1:67108864:64,1:67108864:256,1:268435456:64,1:268435456:256,1:268435456:1024,1:268435456:8192,4:16777216:256,8:4194304:512,16:4194304:256,16:4194304:1024,16:16777216:256
for i in 1 2; do
  for b in new old; do
    t=""; [ $i = 2 ] && [ $b = new ] && t=--torch
    s=$SECONDS; PYTHONPATH=/tmp/site_$b timeout 200 $PY $R/gate16s.py $L/${b}_$i.json --reps 20 $t --shapes $SH > $L/${b}_$i.log 2>&1; echo "== $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
done
$PY $R/table.py $L > $L/table.md 2>&1; cat $L/table.md >> $S
s=$SECONDS; PYTHONPATH=/tmp/site_new:bench timeout 90 $PY bench/dtypes16.py --quick --reps 15 --out $L/d16 > $L/d16.log 2>&1; echo "== dtypes16 rc=$? $((SECONDS-s)) s" >> $S
cp $L/d16/dtypes16.md $L/dtypes16.md 2>/dev/null; tail -6 $L/dtypes16.md >> $S
cp $L/device.txt $L/table.md $L/dtypes16.md $OUT/ 2>/dev/null
tar czf $OUT/logs.tgz -C $L --exclude '*.npy' --exclude d16 .
echo "== end $SECONDS s" >> $S
