#!/usr/bin/env bash
# call e (from the repository root on the device): the committed build (devbin/s2) under
# compute-sanitizer — memcheck, racecheck and synccheck on `rtopk select --algo cuda` of one
# row of 2^23 (parts of eight tiles: the sample runs) at k = 2048, normal (the first pass
# keeps the candidates), striped (the sampled tiles hold the largest values: the floor
# misleads) and ascending (the candidates crowd into the last part: a block overflows), each
# sanitized answer against bisect's.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/le; D=/tmp/ine; mkdir -p $L $D
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; compute-sanitizer --version | tail -1 >> $L/device.txt
chmod +x devbin/s2/*
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
python3 - $D <<'PY'
import sys
import numpy as np
d = sys.argv[1]
rng = np.random.default_rng(23)
m = 1 << 23
x = rng.standard_normal((1, m), dtype=np.float32)
np.save(f"{d}/normal.npy", x)
s = rng.standard_normal((1, m), dtype=np.float32)
for t in range(0, m, 4096 * 32):
    s[:, t : t + 4096] += 50.0
np.save(f"{d}/striped.npy", s)
np.save(f"{d}/ascending.npy", np.sort(x, axis=1))
PY
for f in normal striped ascending; do
  devbin/s2/rtopk select --algo bisect --input $D/$f.npy -k 2048 --values $L/bv_$f.npy --indices $L/bi_$f.npy 2>> $L/err.txt
  for tool in memcheck racecheck synccheck; do
    s=$SECONDS; timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 devbin/s2/rtopk select --algo cuda --input $D/$f.npy -k 2048 --values $L/cv.npy --indices $L/ci.npy > $L/${tool}_$f.txt 2>&1; rc=$?
    same=no; cmp -s $L/cv.npy $L/bv_$f.npy && cmp -s $L/ci.npy $L/bi_$f.npy && same=yes
    echo "== $tool $f rc=$rc $((SECONDS-s)) s, equal to bisect: $same; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/${tool}_$f.txt | tr '\n' ' ')" >> $S
  done
done
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L --exclude '*.npy' .
echo "== end" >> $S
