#!/usr/bin/env bash
# call c (from the repository root on the device: bash
# results/cuda/2026-12-01-radix16-sample-h200/c/call.sh): the f16 first digit pass's SASS —
# resource use and the instruction mix of the cached cubins of devbin/n2's radix units (f16 and
# f32), and Nsight Compute's source page of the f16 first pass (instructions executed per SASS
# line) on one row of 2^26 normal values at k = 256.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/lc; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
chmod +x devbin/n2/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export RTOPK_CUDA_PTX_CACHE=/tmp/cache_c
PY=/opt/torch/.venv/bin/python3; [ -x $PY ] || PY=python3
$PY -c "
import numpy as np
x = np.random.default_rng(26).standard_normal((1, 1 << 26), dtype=np.float32)
np.save('/tmp/x32.npy', x); np.save('/tmp/x16.npy', x.astype(np.float16))"
for t in 32 16; do devbin/n2/rtopk select --algo cuda --input /tmp/x$t.npy -k 256 --values $L/v$t.npy 2>> $L/err.txt; done
ls -la $RTOPK_CUDA_PTX_CACHE > $L/cache_ls.txt 2>&1
# each entry holds its key's length, the key, then the image: the cubin from its ELF magic
$PY - $RTOPK_CUDA_PTX_CACHE $L <<'PY'
import os, sys
src, out = sys.argv[1], sys.argv[2]
for name in sorted(os.listdir(src)):
    data = open(os.path.join(src, name), "rb").read()
    j = data.find(b"\x7fELF")
    if j >= 0 and "radix" in name:
        open(os.path.join(out, name + ".cubin"), "wb").write(data[j:])
PY
for c in $L/*.cubin; do
  echo "== $c" >> $S
  cuobjdump -res-usage $c 2>&1 | grep -E "Function|REG|STACK|LOCAL" | head -20 >> $S
  cuobjdump -sass $c > $c.sass 2>&1
  grep -c "LDL\|STL" $c.sass | sed 's/^/local loads+stores: /' >> $S
done
s=$SECONDS; timeout 200 ncu --cache-control all --kernel-name regex:radix_digits --launch-count 1 --set full --import-source yes \
  --page source --csv devbin/n2/rtopk select --algo cuda --input /tmp/x16.npy -k 256 --values $L/nv16.npy > $L/src16.csv 2>&1
echo "== ncu source f16 rc=$? $((SECONDS-s)) s" >> $S
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L --exclude '*.npy' .
echo "== end $SECONDS s" >> $S
