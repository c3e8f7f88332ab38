#!/usr/bin/env bash
# call b (from the repository root on the device): where the radix select with the write from
# candidates (devbin/rxc) beats the default's other paths at k below the default's radix gate
# (k >= 4096, rows >= 2^20): each shape timed with --strategy radix and with the default
# (auto), N = 1..256 rows of 2^20..2^22 at k = 1024, 2048, 4096, one row of 2^25 and 2^28 at
# k = 512, 1024, 2048; and Nsight Compute's view of the digit passes at 1 x 2^28, k = 32768
# (speed of light, occupancy, warp states), the second (keeping) pass against the first.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/lb; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
chmod +x devbin/rxc/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
run() {  # n m ks
  for st in radix auto; do
    timeout 60 devbin/rxc/rtopk bench cuda --n $1 --m $2 -k $3 --strategy $st --reps 10 --json > $L/x_${st}_$1_$2.json 2>> $L/x.err
    echo "== $st $1 $2 rc=$? $(python3 -c "import json;print([(c['k'],round(c['median_ms'],4)) for c in json.load(open('$L/x_${st}_$1_$2.json'))])" 2>&1)" >> $S
  done
}
for n in 1 2 8 32 96 256; do for m in 1048576 2097152 4194304; do run $n $m 1024,2048,4096; done; done
run 1 33554432 512,1024,2048
run 1 268435456 512,1024,2048
s=$SECONDS; timeout 120 ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis -k regex:radix_digits --launch-count 2 devbin/rxc/rtopk bench cuda --n 1 --m 268435456 -k 32768 --reps 1 > $L/ncu_sections.txt 2>&1; echo "== ncu sections rc=$? $((SECONDS-s)) s" >> $S
cp $L/device.txt $L/ncu_sections.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
