#!/usr/bin/env bash
# compute-sanitizer's four tools on a representative set: M not a multiple of 32, partial last
# blocks, both launch shapes, exact and early stopping, both modes, the sort's shared-memory
# (several rows per block, partial last block) and global-memory paths; quarter-warp rows
# (four rows per warp) forced on small inputs with --strategy quarter ("q:" cases);
# whole-warp rows narrowed to their candidates (M = 700 and 999, k < 128, exact) and block rows
# narrowed to theirs (M = 5001 and 8192, k < 512, exact).
#   bash bench/sanitize_cuda.sh BIN OUTDIR
set -uo pipefail
bin=$1; out=$2; mkdir -p "$out"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
cases=("--n 1003 --m 100 -k 7" "--n 9 --m 33 -k 33" "--n 17 --m 1 -k 1" "--n 5 --m 777 -k 300 --max-iter 3"
       "--n 3 --m 1500 -k 37" "--n 2 --m 70000 -k 513" "--n 11 --m 257 -k 1 --smallest" "--n 2 --m 131071 -k 99"
       "--n 1003 --m 100 -k 7 --sorted" "--n 3 --m 1500 -k 1025 --sorted --smallest" "--n 2 --m 70000 -k 5000 --sorted"
       "--n 9 --m 1000 -k 999 --sorted" "--n 5 --m 2047 -k 200 --sorted" "--n 3 --m 3000 -k 375"
       "q:--n 1003 --m 100 -k 7" "q:--n 13 --m 256 -k 64 --sorted --smallest" "q:--n 6 --m 33 -k 8 --max-iter 2"
       "--n 1001 --m 700 -k 20" "--n 7 --m 999 -k 100 --smallest"
       "--n 3 --m 5001 -k 100" "--n 4 --m 8192 -k 400 --smallest")
fail=0
for tool in memcheck racecheck synccheck initcheck; do
  for c in "${cases[@]}"; do
    log="$out/san_${tool}.log"
    strategy=""
    if [[ $c == q:* ]]; then c=${c#q:}; strategy="--strategy quarter"; fi
    echo "== $tool: bench cuda $c $strategy --reps 1" >> "$log"
    compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin" bench cuda $c $strategy --reps 1 \
        >> "$log" 2>&1
    rc=$?; echo "rc=$rc" >> "$log"
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
    echo "$tool [$c $strategy] rc=$rc $summary"
    [ $rc -eq 0 ] || fail=1
  done
done
exit $fail
