#!/usr/bin/env bash
# Usage (from the repository root on the device): calle.sh — call e (record.md): devbin/b2/rtopk
# (the tree with the guessed bracket) — its kernels compile; guess_check.py (its answers against
# bisect's); then its own kernels against a7e7b75's (devbin/h0 as --kernel-dir) on single shapes
# (20 launches, alternated twice) and on three shapes of other families.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
R=results/cuda/2026-12-02-round-levels-h200; T=results/cuda/2026-12-02-step-trigger-h200
tar xJf devbin/pk5.tar.xz -C devbin
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
B=devbin/b2/rtopk; chmod +x $B
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_b2
timeout 120 $B bench cuda --n 1 --m 100000 -k 2048 --reps 3 > $L/first.txt 2>&1; echo "== first rc=$?" >> $S; grep -iE "error|panic|median|µs|ms" $L/first.txt | head -5 | cut -c1-600 >> $S
timeout 230 $PY $R/guess_check.py $B /tmp/gc > $L/guess_check.txt 2>&1; echo "== guess_check rc=$? $SECONDS s" >> $S; tail -25 $L/guess_check.txt >> $S
SHAPES="1x32768:1024 1x40000:2048 1x49152:2048 1x65536:512 1x65536:2048 1x81920:2048 1x100000:512 1x100000:1024 1x100000:2048 1x131072:1024 1x131072:2048 1x163840:2048 1x262144:512 1x262144:2048 1x500000:2048 8x100000:2048 4x262144:1024 16x131072:1024"
mkdir -p $L/guess
for i in 1 2; do for b in old new; do
  K=""; [ $b = old ] && K="--kernel-dir devbin/h0"
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b
  for c in $SHAPES; do sh=${c%:*}
    timeout 60 $B bench cuda --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --reps 20 --json $K > $L/guess/one_${b}_${i}_${sh}_${c#*:}.json 2>> $L/one.err
  done
done; done
echo "## guess (normal)" >> $S; $PY $T/one_table.py $L/guess >> $S 2>&1; head -c 300 $L/one.err >> $S
mkdir -p $L/fam
for i in 1 2; do for b in old new; do
  K=""; [ $b = old ] && K="--kernel-dir devbin/h0"
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b
  for c in 1x100000:2048 1x65536:2048 1x262144:2048; do sh=${c%:*}
    timeout 90 $B bench cuda --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --reps 20 --dist uniform,ties,llm-logits,radix-adversarial --json $K > $L/fam/fam_${b}_${i}_${sh}_${c#*:}.json 2>> $L/fam.err
  done
done; done
$PY - $L/fam >> $S 2>&1 <<'PY'
import glob, json, sys, statistics
from collections import defaultdict
t = defaultdict(lambda: defaultdict(list))
for f in glob.glob(sys.argv[1] + "/fam_*.json"):
    b = f.split("/fam_")[1].split("_")[0]
    for c in json.load(open(f)):
        t[(c["n"], c["m"], c["k"], c.get("input", ""))][b].append(c["median_ms"] * 1000)
print("## families: shape, k, input, old us, new us, new/old")
for key in sorted(t):
    o, w = statistics.mean(t[key]["old"]), statistics.mean(t[key]["new"])
    print(f"| {key[0]} x {key[1]} | {key[2]} | {key[3]} | {o:.1f} | {w:.1f} | {w / o:.3f} |")
PY
head -c 300 $L/fam.err >> $S
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
