#!/usr/bin/env bash
# call d (from the repository root on the device): the committed build (devbin/rxd: the CLI,
# the gpu and gpu_ragged test binaries; devbin/wd: the wheel) — the GPU tests (the radix
# select against bisect and warp-sim, 16-bit and integer rows in every strategy, every
# strategy and every step kind of the program), gpu_ragged; check.sh's select cases against
# bisect (gen.py of the radix record, gen_extra.py of the candidates record, gen_listed.py
# here); compute-sanitizer memcheck and racecheck; the package's CUDA tests.
set -uo pipefail
R=results/cuda/2026-12-01-radix-listed-write-h200; P=results/cuda/2026-11-30-radix-rows-h200
C=results/cuda/2026-11-30-radix-candidates-h200
S=$OUT/steps.txt; L=/tmp/ld; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/rxd/*
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
s=$SECONDS; timeout 150 devbin/rxd/gpu --include-ignored --test-threads 1 radix_rows sixteen_bit_rows integer_rows every_strategy every_step_kind > $L/gpu_tests.txt 2>&1; echo "== gpu tests rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result" $L/gpu_tests.txt >> $S
s=$SECONDS; timeout 60 devbin/rxd/gpu_ragged --include-ignored > $L/gpu_ragged.txt 2>&1; echo "== gpu_ragged rc=$? $((SECONDS-s)) s" >> $S; grep -E "test result" $L/gpu_ragged.txt >> $S
python3 $P/gen.py /tmp/in; python3 $C/gen_extra.py /tmp/in; python3 $R/gen_listed.py /tmp/in
s=$SECONDS; timeout 170 bash $P/check.sh devbin/rxd/rtopk $L > $L/check.txt 2>&1; echo "== check.sh rc=$? $((SECONDS-s)) s" >> $S; grep -E "MISMATCH|checked" $L/check.txt | head -20 >> $S
for tool in memcheck racecheck; do
  for c in "bench cuda --n 3 --m 3000001 -k 8192 --dist normal --reps 1" \
           "select --algo cuda --input /tmp/in/spike_1x33554432.npy -k 4096 --values /tmp/sv.npy --indices /tmp/si.npy" \
           "select --algo cuda --input /tmp/in/tiespreadf16_1x33554432.npy -k 4096 --values /tmp/sv.npy --indices /tmp/si.npy"; do
    s=$SECONDS; f=$L/san_${tool}_$(echo $c | tr -c 'a-z0-9' _ | cut -c1-80).log
    timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 devbin/rxd/rtopk $c > $f 2>&1
    echo "== $tool [$c] rc=$? $((SECONDS-s)) s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1)" >> $S
  done
done
python3 -m pip install -q --no-deps --target /tmp/site devbin/wd/rtopk-*.whl > $L/pip.txt 2>&1
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
s=$SECONDS; (cd crates/rtopk-py && timeout 190 python3 -m pytest -q -rs -p no:cacheprovider tests -k "cuda and not verify_quick" > $L/pytest_cuda.txt 2>&1); echo "== pytest cuda rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/pytest_cuda.txt >> $S
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
