#!/usr/bin/env bash
# call h (from the repository root on the device): compute-sanitizer memcheck and racecheck on
# the committed build (devbin/rxb) where count_digits takes 16-byte loads: f32 rows whose
# parts start aligned (2 x 2^22) and rows after the first that do not (3 x 3000001), and f16
# rows (a select of gen.py's 3 x 3000001 f16 file and of gen_extra.py's uniform f16 row).
set -uo pipefail
R=results/cuda/2026-11-30-radix-candidates-h200; P=results/cuda/2026-11-30-radix-rows-h200
S=$OUT/steps.txt; L=/tmp/lh; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
chmod +x devbin/rxb/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
python3 $P/gen.py /tmp/in; python3 $R/gen_extra.py /tmp/in
for tool in memcheck racecheck; do
  for c in "bench cuda --n 2 --m 4194304 -k 8192 --dist uniform --reps 1" "bench cuda --n 3 --m 3000001 -k 8192 --dist uniform --reps 1" \
           "select --algo cuda --input /tmp/in/normalf16_3x3000001.npy -k 8192 --values /tmp/sv.npy --indices /tmp/si.npy" \
           "select --algo cuda --input /tmp/in/uniformhalff16_1x4194304.npy -k 32768 --smallest --values /tmp/sv.npy --indices /tmp/si.npy"; do
    s=$SECONDS; f=$L/san_${tool}_$(echo $c | tr -c 'a-z0-9' _ | cut -c1-80).log
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 devbin/rxb/rtopk $c > $f 2>&1
    echo "== $tool [$c] rc=$? $((SECONDS-s)) s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1)" >> $S
  done
done
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
