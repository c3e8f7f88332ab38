#!/usr/bin/env bash
# Call B1 (1 x H200): block rows' staged loads and the block rows' hint read first (devbin/new)
# against HEAD's build (devbin/base): correctness (verify float32, the GPU test binaries), then
# in one call the grids that run block rows (indexer, sampler, appendix-b, long) with both
# builds, alternated twice; the decode benchmark with both wheels; the stage stamps of both.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx PYTHONUNBUFFERED=1
o=/tmp/o; mkdir -p $o
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "base $(cat devbin/base/COMMIT) new $(cat devbin/new/COMMIT)"; } | tee $o/device.txt
step() { local name=$1; shift; local s=$SECONDS; "$@"; echo "== $name rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt; }
python3 -m pip install -q --no-deps --target /tmp/base devbin/base/rtopk-*.whl > /dev/null 2>&1
python3 -m pip install -q --no-deps --target /tmp/new devbin/new/rtopk-*.whl > /dev/null 2>&1
step verify_f32 bash -c "timeout 240 devbin/new/rtopk verify cuda --quick --dtype float32 > $o/verify_f32.txt 2>&1"
tail -3 $o/verify_f32.txt
step gpu_ragged bash -c "timeout 120 devbin/new/gpu_ragged --ignored --test-threads 4 > $o/gpu_ragged.txt 2>&1"
tail -3 $o/gpu_ragged.txt
step gpu bash -c "timeout 150 devbin/new/gpu --ignored --test-threads 2 --skip kernel_matches_bisect_and_the_simulator_in_every_family_shape_and_mode > $o/gpu.txt 2>&1"
tail -3 $o/gpu.txt
san() {
  for tool in memcheck racecheck synccheck; do
    for c in "--n 2 --m 35000 -k 300 --strategy block" "--n 2 --m 70000 -k 513" "--n 4 --m 8192 -k 400 --smallest" "--n 2 --m 16384 -k 512" "--n 3 --m 4100 -k 64 --sorted" "--n 2 --m 3000 -k 375 --strategy block"; do
      echo "== $tool: $c" >> $o/sanitize.txt
      timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 devbin/new/rtopk bench cuda $c --reps 1 >> $o/sanitize.txt 2>&1
      echo "rc=$?" >> $o/sanitize.txt
    done
  done
}
step sanitize san
san_py() {
  for tool in memcheck racecheck; do
    echo "== $tool: san_ragged.py" >> $o/sanitize.txt
    PYTHONPATH=/tmp/new timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 python3 devbin/new/san_ragged.py >> $o/sanitize.txt 2>&1
    echo "rc=$?" >> $o/sanitize.txt
  done
}
step sanitize_ragged san_py
tail -8 $o/sanitize.txt
grep -E "^==|rc=|SUMMARY" $o/sanitize.txt | paste - - - | awk '{print}' | tail -20
tar czf $OUT/logs.tgz -C $o .
cp $o/steps.txt $OUT/
