#!/usr/bin/env bash
# Usage (from the repository root on the device): callb.sh — call b (record.md): variants.py's
# kernel-file variants of d8c95b6's build (devbin/u1/rtopk) through --kernel-dir: the stamps
# of the committed kernel and of kb1 (every block of row 0: its SM and its stages), kb1 and kb2
# against the build's own kernels on single shapes (20 launches, alternated twice), then
# `rtopk verify cuda --quick --dtype float32` on kb1 and kb2.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
B=devbin/u1/rtopk; chmod +x $B
T=results/cuda/2026-12-02-step-trigger-h200
SHAPES="1x100000:2048 1x262144:2048 1x163840:2048 1x65536:512 1x500000:2048 1x40000:2048 16x131072:1024"
for v in stamps1 stampsb1; do
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$v
  for c in 1x100000:2048 1x262144:2048 1x163840:2048 16x131072:1024; do sh=${c%:*}
    timeout 60 $B bench cuda --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --reps 20 --kernel-dir devbin/$v > $L/${v}_${sh}_${c#*:}.txt 2>&1
  done
done
$PY - $L >> $S <<'PY'
import glob, statistics, sys
keys = ["load", "sync0", "range", "value", "rest", "classify", "before", "emit", "total"]
for f in sorted(glob.glob(sys.argv[1] + "/stamps*_*.txt")):
    rows = {}
    for line in open(f):
        if line.startswith("STAGES"):
            t = line.split()
            d = {t[i]: t[i + 1] for i in range(1, len(t) - 1, 2)}
            rows.setdefault(int(d["rank"]), []).append(d)
    print("##", f.split("/")[-1], "it4", rows[0][0]["it4"], "it", rows[0][0]["it"], "exit", rows[0][0]["exit"], "thr", rows[0][0]["thr"])
    print("sm of each rank (first launch):", [rows[r][0]["sm"] for r in sorted(rows)])
    for r in (0, max(rows)):
        med = {k: statistics.median(int(d[k]) for d in rows[r]) for k in keys}
        print(f"rank {r}:", " ".join(f"{k} {med[k]:.0f}" for k in keys), "n", len(rows[r]))
PY
for v in kb1 kb2; do
  mkdir -p $L/$v
  for i in 1 2; do for b in new old; do
    K=""; [ $b = new ] && K="--kernel-dir devbin/$v"
    export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b$v
    for c in $SHAPES; do sh=${c%:*}
      timeout 60 $B bench cuda --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --reps 20 --json $K > $L/$v/one_${b}_${i}_${sh}_${c#*:}.json 2>> $L/one.err
    done
  done; done
  echo "## $v" >> $S; $PY $T/one_table.py $L/$v >> $S 2>&1
done
for v in kb1 kb2; do
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_new$v
  s=$SECONDS; timeout 170 $B verify cuda --quick --dtype float32 --kernel-dir devbin/$v > $L/verify_$v.txt 2>&1
  echo "== verify $v rc=$? $((SECONDS-s)) s" >> $S; grep -E "verify cuda on|MISMATCH|rror" $L/verify_$v.txt | head -3 | cut -c1-500 >> $S
done
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
