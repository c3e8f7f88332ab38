#!/usr/bin/env bash
# call d (from the repository root on the device): a sample of every 64th tile instead of every
# 32nd (devbin/k64: the tree's kernels/ with RADIX_SAMPLE_EVERY redefined in radix_rows.cu,
# compiled by devbin/s2/rtopk bench cuda --kernel-dir) against the build's own kernels: the
# vector-k grid and 1-16 rows of 2^23-2^26 at k = 64 and 2048, alternated twice, and each radix
# kernel by Nsight Compute at 2^28, k = 256, both ways.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
chmod +x devbin/s2/*
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for i in 1 2; do for v in k32 k64; do
  K=""; [ $v = k64 ] && K="--kernel-dir devbin/k64"
  timeout 60 devbin/s2/rtopk bench cuda --grid vector-k,vector --reps 10 --json $K > $L/grid_${v}_$i.json 2> $L/grid_${v}_$i.err; echo "== grid $v $i rc=$?" >> $S
  for n in 1 4 16; do for lm in 23 24 26; do
    [ $((n << lm)) -gt $((1 << 28)) ] && continue
    timeout 30 devbin/s2/rtopk bench cuda --n $n --m $((1 << lm)) -k 64,2048 --reps 10 --json $K > $L/s_${v}_${i}_${n}_${lm}.json 2>> $L/s.err
  done; done
done; done
python3 - $L >> $S 2>&1 <<'PY'
import json, math, sys, glob
d = sys.argv[1]
def cells(v, i):
    out = {}
    for f in [f"{d}/grid_{v}_{i}.json"] + glob.glob(f"{d}/s_{v}_{i}_*.json"):
        for r in json.load(open(f)):
            out[(r["n"], r["m"], r["k"], r["sorted"])] = r["median_ms"]
    return out
a = [cells("k32", i) for i in (1, 2)]
b = [cells("k64", i) for i in (1, 2)]
rs = []
for key in sorted(a[0]):
    if all(key in x for x in a + b):
        r = math.sqrt(b[0][key] * b[1][key] / (a[0][key] * a[1][key]))
        rs.append(r)
        print(key, f"k32 {math.sqrt(a[0][key]*a[1][key]):.4f} k64 {math.sqrt(b[0][key]*b[1][key]):.4f} k64/k32 {r:.3f}")
print(f"{len(rs)} cells: k64/k32 geometric mean {math.exp(sum(map(math.log, rs))/len(rs)):.4f}, range {min(rs):.3f}-{max(rs):.3f}")
PY
for v in k32 k64; do
  K=""; [ $v = k64 ] && K="--kernel-dir devbin/k64"
  timeout 60 ncu --csv --print-units base --metrics gpu__time_duration.sum --cache-control all -k regex:radix devbin/s2/rtopk bench cuda --n 1 --m 268435456 -k 256 --reps 1 $K > $L/ncu_$v.csv 2> $L/ncu_$v.err; echo "== ncu $v" >> $S
  grep radix $L/ncu_$v.csv | awk -F'","' '{print $5, $NF}' | tail -6 >> $S
done
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
