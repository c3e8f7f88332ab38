#!/usr/bin/env bash
# bench/eager_overhead.py again on call_c.sh's wheel (devbin/p3), its hinted case's hint now a
# contiguous float32 tensor (in c/ it was a strided view, which the ragged eager path leaves to
# the general path). Run from the repository root on the device, devbin/p3 carried.
set -u
pip install --no-deps --target /tmp/site devbin/p3/rtopk-*.whl > /dev/null 2>&1
export PYTHONPATH=/tmp/site CUDA_CACHE_DISABLE=1
mkdir -p "$OUT/logs"
timeout 200 python3 bench/eager_overhead.py --calls 2000 --rounds 3 --ragged --json "$OUT/logs/eager_d.json" > "$OUT/logs/eager_d.txt" 2>&1
echo "rc $?" >> "$OUT/logs/eager_d.txt"
