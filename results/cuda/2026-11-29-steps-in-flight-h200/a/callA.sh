#!/usr/bin/env bash
# Call A (1 x H200): the build with steps in flight (programmatic dependent launch of every
# step after a program's first; every entry point waits for the previous step first) and the
# kernels reading int32 per-row words as they are (per_row_entry; the package passes int32
# lengths and k without a clamping launch), devbin/steps, against HEAD's (devbin/head).
# Correctness: rtopk verify cuda --quick on float32, the gpu_ragged and gpu test binaries,
# compute-sanitizer on multi-step programs (sorted output, split rows, thresholds), the
# Python ragged and CUDA-tensor tests (CUDA graphs, torch.compile included). Timing, in the
# same call: the grids indexer, sampler, appendix-b and long (their sorted twins included)
# with both builds alternated twice, the decode benchmark with both wheels.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx PYTHONUNBUFFERED=1
o=/tmp/o; mkdir -p $o
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "head $(cat devbin/head/COMMIT)"; echo "steps $(cat devbin/steps/COMMIT)"; } | tee $o/device.txt
step() { local name=$1; shift; local s=$SECONDS; "$@"; echo "== $name rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt; }
python3 -m pip install -q --no-deps --target /tmp/head devbin/head/rtopk-*.whl > /dev/null 2>&1
python3 -m pip install -q --no-deps --target /tmp/steps devbin/steps/rtopk-*.whl > /dev/null 2>&1
step verify_f32 bash -c "timeout 200 devbin/steps/rtopk verify cuda --quick --dtype float32 > $o/verify_f32.txt 2>&1"
tail -3 $o/verify_f32.txt
step gpu_ragged bash -c "timeout 120 devbin/steps/gpu_ragged --ignored --test-threads 4 > $o/gpu_ragged.txt 2>&1"
tail -3 $o/gpu_ragged.txt
step gpu bash -c "timeout 100 devbin/steps/gpu --ignored --test-threads 4 --skip kernel_matches_bisect_and_the_simulator_in_every_family_shape_and_mode > $o/gpu.txt 2>&1"
tail -3 $o/gpu.txt
san() {
  for tool in memcheck racecheck synccheck; do
    for c in "--n 2 --m 300000 -k 2048" "--n 3 --m 4100 -k 64 --sorted" "--n 5 --m 2000 -k 1500 --sorted" "--n 1 --m 1048576 -k 2048 --sorted"; do
      echo "== $tool: $c" >> $o/sanitize.txt
      timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 devbin/steps/rtopk bench cuda $c --reps 1 >> $o/sanitize.txt 2>&1
      echo "rc=$?" >> $o/sanitize.txt
    done
  done
}
step sanitize san
grep -E "^==|rc=|ERROR SUMMARY" $o/sanitize.txt | tail -40
step pytest bash -c "cd crates/rtopk-py && PYTHONPATH=/tmp/steps timeout 280 python3 -m pytest tests/test_ragged.py tests/test_torch_cuda.py tests/test_torch_topk_parity.py -q -p no:cacheprovider -x > $o/pytest.txt 2>&1"
tail -4 $o/pytest.txt
for r in 1 2; do
  for b in head steps; do
    step grid_${b}_$r bash -c "timeout 120 devbin/$b/rtopk bench cuda --grid indexer,sampler,appendix-b,long --reps 15 --json > $o/grid_${b}_$r.json 2> $o/grid_${b}_$r.err"
  done
done
for r in 1 2; do python3 bench/ab_compare.py $o/grid_head_$r.json $o/grid_steps_$r.json --exact-only --tolerance 0.5 > $o/grid_ab_$r.md 2>&1; python3 bench/ab_compare.py $o/grid_head_$r.json $o/grid_steps_$r.json --tolerance 0.5 > $o/grid_ab_all_$r.md 2>&1; done
tail -4 $o/grid_ab_1.md $o/grid_ab_2.md $o/grid_ab_all_1.md $o/grid_ab_all_2.md
S="--shape 1x16384:512 --shape 1x32768:2048 --shape 8x32768:2048 --shape 16x16384:512 --shape 64x16384:2048 --shape 64x32768:2048 --shape 64x32768:512 --shape 128x32768:1024 --shape 16x32000:64 --shape 128x32000:1024 --shape 64x128256:50 --shape 8x131072:2048 --shape 1x1048576:2048"
for b in head steps; do
  step decode_$b bash -c "PYTHONPATH=/tmp/$b timeout 100 python3 bench/decode.py $S --steps 16 --out $o/decode_$b.json > $o/decode_$b.txt 2>&1"
done
tar czf $OUT/logs.tgz -C $o .
cp $o/steps.txt $o/grid_ab_1.md $o/grid_ab_all_1.md $o/device.txt $OUT/
