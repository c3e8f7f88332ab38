#!/usr/bin/env bash
# Call C (1 x H200): build g (block rows staged in blocks of 16 warps and more and in launches of
# at most 2048 blocks, ragged rows included; every block unit's threads past a row's end skip the
# count's compares; the block rows' hint read first) against HEAD's
# (devbin/base). Correctness: rtopk verify cuda --quick on float32,
# the gpu_ragged and rtopk-cuda gpu test binaries, compute-sanitizer memcheck, racecheck and
# synccheck on block-row shapes and on ragged rows through Python. Timing, in the same call:
# the grids indexer, sampler, appendix-b and long with both builds alternated twice, the
# decode benchmark with both wheels, the block stages' stamps of the final build.
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
for r in 1 2; do
  for b in base new; do
    step grid_${b}_$r bash -c "timeout 120 devbin/$b/rtopk bench cuda --grid indexer,sampler,appendix-b,long --reps 15 --json > $o/grid_${b}_$r.json 2> $o/grid_${b}_$r.err"
  done
done
for r in 1 2; do python3 bench/ab_compare.py $o/grid_base_$r.json $o/grid_new_$r.json --exact-only --tolerance 0.5 > $o/grid_ab_$r.md 2>&1; done
tail -4 $o/grid_ab_1.md $o/grid_ab_2.md
S="--shape 1x16384:512 --shape 1x32768:2048 --shape 8x32768:2048 --shape 16x16384:512 --shape 64x16384:2048 --shape 64x32768:2048 --shape 64x32768:512 --shape 128x32768:1024 --shape 16x32000:64 --shape 128x32000:1024 --shape 64x128256:50 --shape 8x131072:2048 --shape 1x1048576:2048"
for b in base new; do
  step decode_$b bash -c "PYTHONPATH=/tmp/$b timeout 100 python3 bench/decode.py $S --steps 16 --out $o/decode_$b.json > $o/decode_$b.txt 2>&1"
done
step stages_new bash -c "python3 bench/block_stages.py devbin/new/rtopk --json $o/stages_new.json > $o/stages_new.txt 2>&1"
cat $o/stages_new.txt
tar czf $OUT/logs.tgz -C $o .
cp $o/steps.txt $o/stages_new.txt $o/grid_ab_1.md $OUT/
