#!/usr/bin/env bash
# Usage (from the repository root on the device): select_check.sh RTOPK LOGDIR STEPS [narrow] —
# gen_cluster.py's rows (its `narrow` set where asked) through RTOPK's `select`, cuda against
# bisect, largest and smallest, values, indices and iteration counts compared by
# ../2026-12-01-ragged-radix-h200/cmp_npy.py; each select's log in LOGDIR, the comparisons in
# STEPS. Run by this record's call.sh and by ../2026-12-02-cluster-narrow-entry-h200/call.sh.
set -uo pipefail
B=$1; L=$2; S=$3; SET=${4:-}
R=results/cuda/2026-12-01-cluster-narrow-h200; Q=results/cuda/2026-12-01-ragged-radix-h200
PY=/opt/torch/.venv/bin/python3
mkdir -p /tmp/in
$PY $R/gen_cluster.py /tmp/in $SET >> $S 2>&1
for c in a b c d e f g h; do
  k=$(cat /tmp/in/${c}_k.txt)
  for mode in "" "--smallest"; do
    t=${mode:+s}
    for a in cuda bisect; do
      timeout 60 $B select --algo $a -k $k $mode --input /tmp/in/${c}_x.npy --values /tmp/o_${a}_$c${t}_v.npy --indices /tmp/o_${a}_$c${t}_i.npy --iterations /tmp/o_${a}_$c${t}_t.npy > $L/sel_${a}_$c$t.txt 2>&1 || echo "== select $a $c $mode rc=$?" >> $S
    done
    $PY $Q/cmp_npy.py /tmp/o_cuda_$c$t /tmp/o_bisect_$c$t >> $S 2>&1
  done
done
