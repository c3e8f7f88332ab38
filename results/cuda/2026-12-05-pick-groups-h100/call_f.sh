#!/bin/bash
# On the device, from the repository root ($OUT the call's output folder): the SASS of every
# pick unit (54) from the kernels of a8bf289 (old/, the measured build's) and from the mend
# after it (new/: pick_slot16 and NAN16_PAST derived from NEG_INF16), from
# devbin/src2.tar.xz (`rtopk bench cuda --emit-sources`), compiled with nvcc -cubin
# -arch=sm_90; each pair's cuobjdump -sass compared.
set -u
mkdir -p /tmp/src $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt
tar xJf devbin/src2.tar.xz -C /tmp/src
cubin() { nvcc -cubin -arch=sm_90 -std=c++17 -o ${1%.cu}.cubin $1 && cuobjdump -sass ${1%.cu}.cubin > ${1%.cu}.sass; }
export -f cubin
ls /tmp/src/old/*.cu /tmp/src/new/*.cu | xargs -P 16 -I{} bash -c 'cubin {}' > $OUT/nvcc.txt 2>&1
for f in /tmp/src/old/*.sass; do
    u=$(basename $f .sass)
    if cmp -s $f /tmp/src/new/$u.sass; then echo "same $u"; else echo "DIFFERENT $u"; fi
done > $OUT/sass_diff.txt
echo "$(grep -c '^same' $OUT/sass_diff.txt) same, $(grep -c '^DIFFERENT' $OUT/sass_diff.txt) different" >> $OUT/sass_diff.txt
tail -1 $OUT/sass_diff.txt
