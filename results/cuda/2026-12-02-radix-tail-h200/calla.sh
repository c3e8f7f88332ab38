#!/usr/bin/env bash
# Usage (from the repository root on the device): calla.sh — call a (record.md): where a short
# radix row's time goes. The radix unit's steps made to return at once (timing only: wrong
# answers), each variant's kernel directory through one binary (devbin/t6, HEAD's build),
# `rtopk bench cuda --kernel-dir`, alternated twice. The variants were made on this machine by
# `python3 results/cuda/2026-12-02-radix-tail-h200/variants.py devbin/e1` and packed with the
# binary: `tar cJf devbin/pke1.tar.xz -C
# devbin e1 t6`.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
tar xJf devbin/pke1.tar.xz -C devbin
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=devbin/t6/rtopk; chmod +x $B
SHAPES="1x2097152:2048 1x4194304:2048 1x1048576:1024 2x2097152:1024 8x2097152:2048"
for i in 1 2; do for v in base c0 cw0 lcw0 p1only all0; do
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$v
  for c in $SHAPES; do sh=${c%:*}
    timeout 60 $B bench cuda --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --reps 30 --json --kernel-dir devbin/e1/$v > $L/${v}_${i}_${sh}_${c#*:}.json 2>> $L/err.txt
  done
done; done
python3 - $L >> $S <<'PY'
import glob, json, sys, collections
t = collections.defaultdict(list)
for f in glob.glob(sys.argv[1] + "/*.json"):
    v, i, sh, k = f.split("/")[-1][:-5].split("_")
    try:
        for c in json.load(open(f)):
            t[(sh, k, v)].append(c["median_ms"] * 1000)
    except Exception as e:
        print(f, e)
vs = ["base", "c0", "cw0", "lcw0", "p1only", "all0"]
print("| shape | k | " + " | ".join(vs) + " |")
for sh, k in sorted({(a, b) for a, b, _ in t}):
    print(f"| {sh} | {k} | " + " | ".join("/".join(f"{x:.1f}" for x in t[(sh, k, v)]) for v in vs) + " |")
PY
head -c 600 $L/err.txt >> $S
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
