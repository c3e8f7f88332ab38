#!/bin/bash
# Issue 37, fifth call: the wide rows with every slot loaded before any is keyed, the selected
# values from their keys, one ballot per chunk for a hit's cut, no bound test in count_wide
# (binaries and wheel of the working tree after 68c4cad). `rtopk verify cuda --quick` on
# float64, then int64, in the background (every width, family, search, mode and sorted output
# against bisect and the simulator) while the GPU tests run (gpu_ragged's wide tests; the
# Python torch parity tests and 64-bit CUDA tests); then, alone on the GPU, bench/dtypes_int.py
# over the RTop-K grid and ncu on one call (as c/).
set -u
B=devbin/wide2
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx PYTHONUNBUFFERED=1
step() { local name=$1; shift; local t0=$(date +%s); "$@"; local rc=$?; echo "$name rc=$rc s=$(( $(date +%s) - t0 ))" >> $OUT/steps.txt; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; date -u +%Y-%m-%dT%H:%MZ; nproc; } > $OUT/device.txt
chmod +x $B/rtopk $B/gpu_ragged
( step verify_f64 timeout 250 $B/rtopk verify cuda --quick --dtype float64 > $OUT/verify_f64.txt 2>&1
  step verify_i64 timeout 200 $B/rtopk verify cuda --quick --dtype int64 > $OUT/verify_i64.txt 2>&1 ) &
bg=$!
step gpu_ragged_wide timeout 150 $B/gpu_ragged --ignored wide --test-threads 4 > $OUT/gpu_ragged_wide.txt 2>&1
python3 -m pip install -q --no-deps --target /tmp/site $B/*.whl > /dev/null 2>&1
export PYTHONPATH=/tmp/site
step pytest timeout 200 python3 -m pytest crates/rtopk-py/tests/test_torch_topk_parity.py crates/rtopk-py/tests/test_torch_cuda.py -k "not verify_quick" -q -rs -p no:cacheprovider --durations=5 > $OUT/pytest.txt 2>&1
wait $bg
step dtypes_int timeout 120 python3 bench/dtypes_int.py --types float32,float64,int64,int32 --reps 15 --out $OUT > $OUT/dtypes_int_log.txt 2>&1
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section InstructionStats --section LaunchStats"
for c in "float64 768 32" "int64 256 32"; do
  set -- $c
  step "ncu_$1_$2" timeout 40 ncu $S --cache-control all --launch-skip 2 --launch-count 1 -k regex:rtopk python3 $B/prof.py $1 $2 $3 > $OUT/ncu_$1_$2.txt 2>&1
done
cd $OUT && tar czf logs.tgz ncu_*.txt dtypes_int_log.txt dtypes_int.json && rm ncu_*.txt dtypes_int_log.txt dtypes_int.json
