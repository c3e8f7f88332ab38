#!/usr/bin/env bash
# Issue 21, third pass, call A: where the few-row split time goes (Nsight Compute kernel times of
# one call), the price of a per-row barrier across blocks (bench/cross_block_rounds.py), and
# four plan variants of the split route timed shape by shape in turn (v0 = HEAD 94774bf;
# v1 = chunks 16 k wide; v2 = the second stage split only past 16384; v3 = both).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
out=$OUT/r; mkdir -p $out
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $out/device.txt
step() { local name=$1; shift; local s=$SECONDS; "$@" > $out/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s"; tail -n ${TAILN:-3} $out/$name.txt; }
TAILN=6 step cross_block timeout 120 python3 bench/cross_block_rounds.py --out $out/cross_block.json
# warm the PTX caches of every variant
for v in 0 1 2 3; do devbin/rtopk_v$v bench cuda --n 4 --m 131072 -k 50,256,1024 --reps 3 > /dev/null 2>&1; done
prof() { local name=$1; shift
  ncu --clock-control none --kernel-name regex:'rtopk_(warp|half|quarter|block|split|sort)' --metrics gpu__time_duration.sum --csv devbin/rtopk_v0 bench cuda "$@" --reps 1 > $out/ncu_$name.csv 2> $out/ncu_$name.err
  echo "== ncu $name $*"; python3 - $out/ncu_$name.csv <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
hdr = rows[0]; data = rows[1:]
ki, vi, ii = hdr.index("Kernel Name"), hdr.index("Metric Value"), hdr.index("ID")
for r in data[-8:]:
    print(f"  {r[ii]:>4} {r[ki][:60]:60s} {float(r[vi].replace(',',''))/1000:8.2f} us")
PY
}
prof n1m131k_k50 --n 1 --m 131072 -k 50
prof n1m131k_k256 --n 1 --m 131072 -k 256
prof n4m131k_k256 --n 4 --m 131072 -k 256
prof n1m32k_k50 --n 1 --m 32768 -k 50
prof n1024m1m_k256 --n 1024 --m 1048576 -k 256
prof n1024m1m_k1024 --n 1024 --m 1048576 -k 1024
prof n1m16m_k16384 --n 1 --m 16777216 -k 16384
# the variants, shape by shape in turn, unsorted, no iteration counts (the split route)
s=$SECONDS
for n in 1 4 16 64 256 1024; do for m in 32768 131072 262144 1048576; do for v in 0 1 2 3; do
  devbin/rtopk_v$v bench cuda --n $n --m $m -k 50,256,1024 --reps 15 --json > $out/var_v${v}_n${n}_m${m}.json 2>> $out/var_err.txt
done; done; done
for m in 16777216 67108864 268435456; do for v in 0 1 2 3; do
  devbin/rtopk_v$v bench cuda --n 1 --m $m -k 64,1024,16384 --reps 15 --json > $out/var_v${v}_n1_m${m}.json 2>> $out/var_err.txt
done; done
echo "variants: $((SECONDS-s)) s"
python3 - $out <<'PY'
import json, glob, sys, math, collections
cells = collections.defaultdict(dict)
for f in glob.glob(sys.argv[1] + "/var_v*.json"):
    v = f.split("var_v")[1][0]
    try: rows = json.load(open(f))
    except Exception as e: print("bad", f, e); continue
    for r in rows: cells[(r["n"], r["m"], r["k"])][v] = r["median_ms"]
print(f"{'N':>5} {'M':>10} {'k':>6} " + " ".join(f"{'v'+v:>9}" for v in "0123"))
for key in sorted(cells):
    c = cells[key]; print(f"{key[0]:5d} {key[1]:10d} {key[2]:6d} " + " ".join(f"{c.get(v, float('nan')):9.4f}" for v in "0123"))
for v in "123":
    r = [cells[c][v] / cells[c]["0"] for c in cells if v in cells[c] and "0" in cells[c]]
    print(f"v{v}/v0 geo mean {math.exp(sum(map(math.log, r)) / len(r)):.4f} min {min(r):.3f} max {max(r):.3f} over {len(r)}")
PY
cd $OUT && tar czf r.tgz r && rm -rf r
