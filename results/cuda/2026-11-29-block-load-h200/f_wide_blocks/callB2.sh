#!/usr/bin/env bash
# Call B2 (1 x H200): block rows' staged loads and the block rows' hint read first (devbin/new)
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
