#!/bin/bash
# Issue 37, third call (binaries of 68c4cad; test_torch_cuda.py with same_answer fixed: a
# result without counts has no iterations field): the four Python ragged 64-bit CUDA tests;
# then ncu on one call of the wide rows (float64 2^18 x 768 and 2^18 x 256, int64 2^18 x 256)
# and, beside them, the float32 kernel on the same float64 draws rounded: why a 64-bit row costs
# 3-10x a 32-bit one (a/dtypes_int.md).
set -u
B=devbin/wide
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx PYTHONUNBUFFERED=1
step() { local name=$1; shift; local t0=$(date +%s); "$@"; local rc=$?; echo "$name rc=$rc s=$(( $(date +%s) - t0 ))" >> $OUT/steps.txt; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; date -u +%Y-%m-%dT%H:%MZ; nproc; } > $OUT/device.txt
python3 -m pip install -q --no-deps --target /tmp/site $B/*.whl > /dev/null 2>&1
export PYTHONPATH=/tmp/site
step pytest_ragged64 timeout 150 python3 -m pytest crates/rtopk-py/tests/test_torch_cuda.py -k "ragged_64" --tb=short -q -rs -p no:cacheprovider --durations=4 > $OUT/pytest_ragged64.txt 2>&1
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section InstructionStats --section LaunchStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis"
for c in "float64 768 32" "float64 256 32" "int64 256 32" "float32 768 32" "float32 256 32"; do
  set -- $c
  step "ncu_$1_$2" timeout 90 ncu $S --cache-control all --launch-skip 2 --launch-count 1 -k regex:rtopk python3 $B/prof.py $1 $2 $3 > $OUT/ncu_$1_$2.txt 2>&1
done
cd $OUT && tar czf ncu.tgz ncu_*.txt && rm ncu_*.txt
