#!/usr/bin/env bash
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
out=$OUT; mkdir -p $out/r
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $out/r/device.txt
date -u +%Y-%m-%dT%H:%MZ | tee -a $out/r/device.txt
cache=$(mktemp -d)
s=$SECONDS
CUDA_CACHE_DISABLE=1 RTOPK_CUDA_PTX_CACHE=$cache devbin/rtopk verify cuda --quick > $out/r/verify_quick.txt 2>&1; echo "verify rc=$? $((SECONDS-s)) s"
tail -22 $out/r/verify_quick.txt
for t in devbin/tests/gpu-* devbin/tests/rtopk_cuda-*; do
  s=$SECONDS
  $t --include-ignored --test-threads 1 --skip kernel_matches_bisect_and_the_simulator_in_every_family_shape_and_mode > $out/r/tests_$(basename $t | cut -d- -f1).txt 2>&1; echo "$t rc=$? $((SECONDS-s)) s"
  grep "test result" $out/r/tests_$(basename $t | cut -d- -f1).txt
done
s=$SECONDS
compute-sanitizer --tool memcheck --error-exitcode 9 devbin/tests/gpu_raw-* --include-ignored --test-threads 1 > $out/r/sanitizer_memcheck_raw.txt 2>&1; echo "memcheck raw rc=$? $((SECONDS-s)) s"; tail -2 $out/r/sanitizer_memcheck_raw.txt
cd $out && tar czf r.tgz r && rm -rf r
