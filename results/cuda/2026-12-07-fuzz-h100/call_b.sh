#!/usr/bin/env bash
# Call b: the sort's launch bound (bins38, wheel h21) — the GPU tests of the sorted output (the
# new 16-bit one on every sort path), the package's CUDA tests, the fuzz again on call a's
# seeds, and f32 sorted calls at large k against bins36 (the kernels before), in turn.
set -uo pipefail
source bench/device_call.sh
bins 38; bins 36; wheel h21
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_b38
step gpu_sorted 150 /tmp/bins38/gpu --ignored --test-threads=1 sixteen_bit_rows_sort_on_the_device_in_every_sort_path sorted_output_is_sorted_on_the_device_in_both_sort_paths sixteen_bit_rows_match_bisect_in_every_strategy
step pytest_cuda 200 env $(build_env h21) $PY -m pytest crates/rtopk-py/tests/test_torch_cuda.py crates/rtopk-py/tests/test_dtypes16.py -q -x -p no:cacheprovider
step fuzz_s1 200 env $(build_env h21) $PY bench/fuzz_cuda.py --seconds 180 --seed 1 --out $OUT/fuzz_s1.json
step fuzz_s2 110 env $(build_env h21) $PY bench/fuzz_cuda.py --seconds 100 --seed 2 --out $OUT/fuzz_s2.json
for r in 1 2; do
  for b in 36 38; do
    for s in "1 1000000 8192" "3 9000 8192" "140 8200 8192" "2 40000 16384" "16 100000 2048"; do
      set -- $s
      echo "r$r b$b $s $(RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t$b /tmp/bins$b/rtopk bench cuda --n $1 --m $2 -k $3 --sorted --reps 30 --json 2>/dev/null | tr -d '\n' | head -c 600)" >> $OUT/sorted_f32.txt
    done
  done
done
cat $OUT/steps.txt; tail -n 5 $OUT/gpu_sorted.txt; tail -n 3 $OUT/pytest_cuda.txt; grep -E 'FAIL|cases in' $OUT/fuzz_s1.txt $OUT/fuzz_s2.txt | head -20
