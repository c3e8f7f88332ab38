#!/usr/bin/env bash
# call e (from the repository root on the device): the committed build (devbin/e: the CLI, the
# rtopk-cuda gpu and rtopk gpu_ragged test binaries) — the GPU tests (the radix select against
# bisect and warp-sim, 16-bit and integer rows in every strategy, every strategy and every step
# kind of the program), gpu_ragged; check.sh's select cases against bisect (gen.py of the radix
# record, gen_extra.py of the candidates record, gen_listed.py of the listed-write record);
# compute-sanitizer memcheck and racecheck, short rows among them.
set -uo pipefail
P=results/cuda/2026-11-30-radix-rows-h200; C=results/cuda/2026-11-30-radix-candidates-h200
W=results/cuda/2026-12-01-radix-listed-write-h200
S=$OUT/steps.txt; L=/tmp/le; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/e/*
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
s=$SECONDS; timeout 170 devbin/e/gpu --include-ignored --test-threads 1 radix_rows sixteen_bit_rows integer_rows every_strategy every_step_kind > $L/gpu_tests.txt 2>&1; echo "== gpu tests rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result" $L/gpu_tests.txt >> $S
s=$SECONDS; timeout 60 devbin/e/gpu_ragged --include-ignored > $L/gpu_ragged.txt 2>&1; echo "== gpu_ragged rc=$? $((SECONDS-s)) s" >> $S; grep -E "test result" $L/gpu_ragged.txt >> $S
python3 $P/gen.py /tmp/in; python3 $C/gen_extra.py /tmp/in; python3 $W/gen_listed.py /tmp/in
s=$SECONDS; timeout 170 bash $P/check.sh devbin/e/rtopk $L > $L/check.txt 2>&1; echo "== check.sh rc=$? $((SECONDS-s)) s" >> $S; grep -E "MISMATCH|checked" $L/check.txt | head -20 >> $S
for tool in memcheck racecheck; do
  for c in "bench cuda --n 1 --m 2097152 -k 2048 --dist normal --reps 1" \
           "bench cuda --n 2 --m 4194304 -k 8192 --dist ties --reps 1" \
           "bench cuda --n 3 --m 3000001 -k 8192 --dist normal --reps 1" \
           "select --algo cuda --input /tmp/in/spike_1x33554432.npy -k 4096 --values /tmp/sv.npy --indices /tmp/si.npy" \
           "select --algo cuda --input /tmp/in/tiespreadf16_1x33554432.npy -k 4096 --values /tmp/sv.npy --indices /tmp/si.npy"; do
    s=$SECONDS; f=$L/san_${tool}_$(echo $c | tr -c 'a-z0-9' _ | cut -c1-80).log
    timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 devbin/e/rtopk $c > $f 2>&1
    echo "== $tool [$c] rc=$? $((SECONDS-s)) s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1)" >> $S
  done
done
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
