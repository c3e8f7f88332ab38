#!/usr/bin/env bash
# Usage (from the repository root on the device): tune.sh — call d (record.md): the committed
# rounds with other constants, as --kernel-dir variants of devbin/t2's kernels (its
# kernels/ with two lines ahead of cluster_rows.cu): kv5, CLUSTER_ROUND_LEVELS 5 (31
# thresholds, 32 leaves; `rtopk verify cuda --quick --dtype float32` on it first); kc8,
# CLUSTER_LOCAL_CAP 8192. Each against devbin/t2's own kernels through the same binary
# (../2026-12-02-step-trigger-h200/variant_ab.sh: single shapes, the grids twice), logs in
# $OUT/kv5 and $OUT/kc8.
set -uo pipefail
ROOT=$OUT
nvidia-smi -L > $ROOT/device.txt; date -u >> $ROOT/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $ROOT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=devbin/t2; chmod +x $B/rtopk
s=$SECONDS; timeout 200 $B/rtopk verify cuda --quick --dtype float32 --kernel-dir $B/kv5 > $ROOT/verify_kv5.txt 2>&1
echo "== verify kv5 rc=$? $((SECONDS-s)) s" >> $ROOT/steps.txt; grep -E "verify cuda on|MISMATCH" $ROOT/verify_kv5.txt | head -3 | cut -c1-400 >> $ROOT/steps.txt
for v in kv5 kc8; do
  mkdir -p $ROOT/$v; rm -rf /tmp/ld
  OUT=$ROOT/$v bash results/cuda/2026-12-02-step-trigger-h200/variant_ab.sh $B/rtopk $B/$v 2 \
    "1x40000:2048 1x49152:2048 1x65536:512 1x100000:2048 1x131072:1024 1x163840:2048 1x262144:2048 1x262144:512 1x262144:256 8x100000:2048 4x262144:1024 1x500000:2048 16x131072:1024 1x128256:1024"
  cp /tmp/ld/one_table.md /tmp/ld/groups.md $ROOT/$v/
done
echo "== end $SECONDS s" >> $ROOT/steps.txt
