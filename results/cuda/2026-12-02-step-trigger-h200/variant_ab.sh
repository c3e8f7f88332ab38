#!/usr/bin/env bash
# Usage (from the repository root on the device, $OUT set): variant_ab.sh BIN NEW RUNS
# SHAPES [SORTED] — kernel files NEW (a directory: --kernel-dir) against BIN's own, through
# BIN, or the binary NEW against BIN, on the same rows: the single shapes (SHAPES and SORTED, sorted output: "NxM:K ...", 20 launches
# each, the two builds alternated twice; one_table.py), then the seven grids (--reps 10, the
# builds alternated RUNS times; bench/ab_compare.py), each build warmed on the grids first.
# Summary in $OUT/steps.txt, every log in $OUT/logs.tgz. Run by this record's call.sh and by
# ../2026-12-02-cluster-local-narrow-h200/call.sh.
set -uo pipefail
B=$1; KV=$2; RUNS=$3; SHAPES=$4; SORTED=${5:-}
T=results/cuda/2026-12-02-step-trigger-h200
S=$OUT/steps.txt; L=/tmp/ld; mkdir -p $L
PY=/opt/torch/.venv/bin/python3
G=rtopk,appendix-b,split,indexer,sampler,vector,vector-k
declare -A RUN=([old]="$B bench cuda" [new]="$KV bench cuda")
if [ -d "$KV" ]; then
  diff -r crates/rtopk-cuda/kernels $KV > $L/variant.diff 2>&1
  RUN[new]="$B bench cuda --kernel-dir $KV"
fi
for b in new old; do
  s=$SECONDS; timeout 300 ${RUN[$b]} --grid $G --reps 2 --json > /dev/null 2> $L/warm_$b.err; echo "== warm $b rc=$? $((SECONDS-s)) s" >> $S
done
for i in 1 2; do for b in new old; do
  for c in $SHAPES; do sh=${c%:*}
    timeout 30 ${RUN[$b]} --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --reps 20 --json > $L/one_${b}_${i}_${sh}_${c#*:}.json 2>> $L/one.err
  done
  for c in $SORTED; do sh=${c%:*}
    timeout 30 ${RUN[$b]} --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --sorted --reps 20 --json > $L/one_${b}_${i}_${sh}_${c#*:}_sorted.json 2>> $L/one.err
  done
done; done
$PY $T/one_table.py $L > $L/one_table.md 2>&1; cat $L/one_table.md >> $S
for i in $(seq $RUNS); do
  for b in new old; do
    s=$SECONDS; timeout 150 ${RUN[$b]} --grid $G --reps 10 --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_old_$i.json $L/grid_new_$i.json > $L/ab_$i.txt 2>&1; tail -1 $L/ab_$i.txt | cut -c1-900 >> $S
done
python3 $T/groups.py $L > $L/groups.md 2>&1
tar czf $OUT/logs.tgz -C $L .
