#!/usr/bin/env bash
# call d (from the repository root on the device): 784e5e0's rtopk binary (devbin/w3), units
# built on the device from its embedded sources: verify --quick on float16 and bfloat16 at once.
set -uo pipefail
S=$OUT/steps.txt
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt
chmod +x devbin/w3/rtopk
export RTOPK_CUDA_PTX_CACHE=/tmp/ptxc
s=$SECONDS
for d in float16 bfloat16; do
  (timeout 400 devbin/w3/rtopk verify cuda --quick --dtype $d > $OUT/verify_$d.txt 2>&1; echo "rc=$?" >> $OUT/verify_$d.txt) &
done
wait
echo "== verify $((SECONDS-s)) s" >> $S
for d in float16 bfloat16; do tail -3 $OUT/verify_$d.txt >> $S; done
