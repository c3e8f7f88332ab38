#!/usr/bin/env bash
# The GPU tests but the long f32 simulator sweep and the 16-bit test (run in run19.sh), with the
# new test of a launch planned for another element type than its buffers'.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
out=$OUT/r; mkdir -p $out
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $out/device.txt
devbin/tests/gpu-* --include-ignored --test-threads 1 --skip sixteen_bit --skip kernel_matches_bisect_and_the_simulator_in_every_family_shape_and_mode > $out/tests_gpu.txt 2>&1; echo "rc=$?"; tail -16 $out/tests_gpu.txt
cd $OUT && tar czf r.tgz r && rm -rf r
