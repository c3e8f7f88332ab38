#!/usr/bin/env bash
# Usage (from the repository root on the device): call.sh kv2|kv3 — this record's calls
# (record.md): cluster rows that narrow within their blocks. devbin/t1/kv2: the kernels/ of
# devbin/t1 (../2026-12-02-step-trigger-h200's build) with local_narrow.patch applied (call a);
# devbin/t1/kv3: with rounds.patch (call b: four bisection steps a cluster round once narrowed).
# The variant is built on one shape first (call b: then `rtopk verify cuda --quick` of f32 rows
# on it, a --kernel-dir the binary takes since call a), then timed against the build's own kernels through
# the same binary (../2026-12-02-step-trigger-h200/variant_ab.sh): single cluster-row shapes,
# the grids twice.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; mkdir -p $L
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
KV=devbin/t1/$1; B=devbin/t1; chmod +x $B/* 2> /dev/null
s=$SECONDS; timeout 120 $B/rtopk bench cuda --kernel-dir $KV --n 1 --m 262144 -k 2048 --reps 3 > $L/compile.txt 2>&1; rc=$?
echo "== compile rc=$rc $((SECONDS-s)) s" >> $S; tail -5 $L/compile.txt | cut -c1-2000 >> $S
[ $rc = 0 ] || exit 0
if [ $1 != kv2 ]; then  # call b: the variant's answers first (--kernel-dir, built after call a)
  s=$SECONDS; timeout 240 $B/rtopk verify cuda --quick --dtype float32 --kernel-dir $KV > $L/verify.txt 2>&1
  echo "== verify rc=$? $((SECONDS-s)) s" >> $S; grep -E "verify cuda on|MISMATCH|mismatch" $L/verify.txt | head -5 | cut -c1-600 >> $S
fi
bash results/cuda/2026-12-02-step-trigger-h200/variant_ab.sh $B/rtopk $KV 2 \
  "1x40000:2048 1x49152:2048 1x65536:512 1x100000:2048 1x131072:1024 1x163840:2048 1x262144:2048 1x262144:512 1x262144:256 8x100000:2048 4x262144:1024 1x500000:2048 16x131072:1024 1x128256:1024"
echo "== end $SECONDS s" >> $S
