#!/usr/bin/env bash
# Call E (1 x H200): rows that select all they have skip the search (h7) — GPU against CPU,
# GPU tests, per-kernel times, decode, grids — against h6 (before) in the same call.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
T0=$SECONDS
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "old $(cat devbin/h6/COMMIT), new $(cat devbin/h7/COMMIT)"; } > $o/device.txt
cat $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/old devbin/h6/rtopk-*.whl 2>&1 | tail -2
python3 -m pip install -q --no-deps --target /tmp/new devbin/h7/rtopk-*.whl 2>&1 | tail -2
step() { local name=$1; shift; local s=$SECONDS; "$@"; echo "== $name rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt; }
step allcheck bash -c "PYTHONPATH=/tmp/new RTOPK_CUDA_PTX_CACHE=/tmp/ptx_new timeout 200 python3 devbin/rg/allcheck.py > $o/allcheck.txt 2>&1"
tail -4 $o/allcheck.txt
step gpu_ragged bash -c "timeout 150 devbin/h7/gpu_ragged --ignored > $o/gpu_ragged.txt 2>&1"
tail -3 $o/gpu_ragged.txt
step gpu bash -c "timeout 150 devbin/h7/gpu --ignored --skip kernel_matches_bisect_and_the_simulator_in_every_family_shape_and_mode > $o/gpu.txt 2>&1"
tail -3 $o/gpu.txt
for b in new old; do
  step prof_$b bash -c "PYTHONPATH=/tmp/$b RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b timeout 120 python3 devbin/rg/ragged_prof.py $o/ragged_prof_$b.json > $o/ragged_prof_$b.txt 2>&1"
done
for b in new old; do
  step decode_$b bash -c "PYTHONPATH=/tmp/$b RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b timeout 150 python3 bench/decode.py --out $o/decode_$b.json > $o/decode_$b.txt 2>&1"
done
for r in 1 2; do for b in h7 h6; do
  step grid_${b}_$r bash -c "timeout 120 devbin/$b/rtopk bench cuda --grid indexer,sampler,appendix-b --reps 15 --json > $o/grid_${b}_$r.json 2> $o/grid_${b}_$r.err"
done; done
python3 bench/ab_compare.py $o/grid_h6_1.json $o/grid_h7_1.json --tolerance 0.5 > $o/grid_ab_1.txt 2>&1; tail -4 $o/grid_ab_1.txt
python3 bench/ab_compare.py $o/grid_h6_2.json $o/grid_h7_2.json --tolerance 0.5 > $o/grid_ab_2.txt 2>&1; tail -4 $o/grid_ab_2.txt
grep -v "Warn\|_warn" $o/ragged_prof_new.txt | head -12
grep -A6 "shape .*full .*lengths" $o/decode_new.txt $o/decode_old.txt
echo "total $((SECONDS - T0)) s" | tee -a $o/steps.txt
tar czf $OUT/call_e.tgz -C $o .
