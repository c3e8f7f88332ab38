#!/usr/bin/env bash
# Call d (1 x H200, from the repository root): why hinted one-block rows slowed under the new
# window tests. devbin/r3 = b440cb5's build (windows 2^-8, 2^-4), devbin/w5 = 95b0144's (10, 7,
# 4; the hint test in one round): each CLI selects hinted rows of 1 x 16384 (k = 512, a block of
# 512 threads) and 64 x 32768 (k = 512, blocks of 1024) into a cache of its own, then
# cuobjdump -res-usage reads every cached unit's registers, stack and local memory.
set -uo pipefail
S=$OUT/steps.txt
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } > $OUT/device.txt
python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(3)
for name, shape in (('s', (1, 16384)), ('w', (64, 32768))):
    x = rng.standard_normal(shape).astype('<f4')
    np.save(f'/tmp/{name}.npy', x)
    np.save(f'/tmp/{name}h.npy', np.full(shape[0], 2.0, dtype='<f4'))
PY
for b in r3 w5; do
  chmod +x devbin/$b/rtopk
  for name in s w; do
    RTOPK_CUDA_PTX_CACHE=/tmp/pc_$b devbin/$b/rtopk select --algo cuda --input /tmp/$name.npy -k 512 --hint /tmp/${name}h.npy --indices /tmp/${b}_$name.npy >> $S 2>&1
    echo "select $b $name rc=$?" >> $S
  done
  python3 - "$b" >> $S 2>&1 <<'PY'
import glob, os, subprocess, sys
b = sys.argv[1]
for f in sorted(glob.glob(f'/tmp/pc_{b}/*.cubin')):
    data = open(f, 'rb').read()
    nl = data.index(b'\n')
    n = int(data[:nl])
    img = data[nl + 1 + n:]
    out = f + '.img'
    open(out, 'wb').write(img)
    r = subprocess.run(['cuobjdump', '-res-usage', out], capture_output=True, text=True)
    lines = [l.strip() for l in r.stdout.splitlines() if 'Function' in l or 'REG' in l]
    print(b, os.path.basename(f)[:60], ' | '.join(lines)[:400])
PY
done
cmp /tmp/r3_s.npy /tmp/w5_s.npy && cmp /tmp/r3_w.npy /tmp/w5_w.npy && echo "same indices from both builds" >> $S
echo "== end" >> $S
