#!/bin/bash
# Pick rows: the plan's rule over a grid (pick against the bisection, bit for bit), and the
# Python package's CUDA tests whole (the final build's wheel, devbin/pick3/).
set -u
B=devbin/pick3
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
step() { local name=$1; shift; local t0=$(date +%s); "$@"; local rc=$?; echo "$name rc=$rc s=$(( $(date +%s) - t0 ))" >> $OUT/steps.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $OUT/device.txt
python3 -m pip install -q --no-deps --target /tmp/site $B/*.whl > /dev/null 2>&1
export PYTHONPATH=/tmp/site
step grid timeout 200 python3 bench/router_rows.py --grid --out /tmp/grid --reps 15 > /tmp/grid_log.txt 2>&1
cp /tmp/grid/pick_grid.md /tmp/grid/pick_grid.json $OUT/ 2>/dev/null
tail -2 /tmp/grid_log.txt >> $OUT/steps.txt
pushd crates/rtopk-py > /dev/null
step pytest timeout 360 python3 -m pytest -q tests/test_torch_cuda.py tests/test_torch_topk_parity.py tests/test_dtypes16.py tests/test_ragged.py -p no:cacheprovider > $OUT/pytest.txt 2>&1
tail -3 $OUT/pytest.txt >> $OUT/steps.txt
popd > /dev/null
