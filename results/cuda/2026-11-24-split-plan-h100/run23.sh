#!/usr/bin/env bash
# Issue 21, third pass, call B: the new plan rule (v4: chunks of 16 k at most a quarter row,
# the second stage split only past 16384) against HEAD (v0), and v4 with narrower chunks for
# small k (v5: at least 1024, v6: at least 512), shape by shape in turn; the wide regime for v0
# and v4.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
out=$OUT/r; mkdir -p $out
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $out/device.txt
for v in 0 4 5 6; do devbin/rtopk_v$v bench cuda --n 4 --m 131072 -k 50,256,1024 --reps 3 > /dev/null 2>&1; done
s=$SECONDS
for n in 1 4 16 64 256 1024; do for m in 32768 131072 262144 1048576; do for v in 0 4 5 6; do
  devbin/rtopk_v$v bench cuda --n $n --m $m -k 50,256,1024 --reps 15 --json > $out/var_v${v}_n${n}_m${m}.json 2>> $out/var_err.txt
done; done; done
for m in 16384 32768 65536; do for v in 0 4; do
  devbin/rtopk_v$v bench cuda --n 16384 --m $m -k 50,256,1024 --reps 15 --json > $out/var_v${v}_n16384_m${m}.json 2>> $out/var_err.txt
done; done
for m in 16777216 67108864; do for v in 0 4; do
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
    for r in rows: cells[(r["n"], r["m"], r["k"])][v] = (r["median_ms"], r["read_bw_fraction"])
vs = "0456"
print(f"{'N':>5} {'M':>10} {'k':>6} " + " ".join(f"{'v'+v:>9}" for v in vs) + "  bw v4")
for key in sorted(cells):
    c = cells[key]; print(f"{key[0]:5d} {key[1]:10d} {key[2]:6d} " + " ".join(f"{c[v][0] if v in c else float('nan'):9.4f}" for v in vs) + f"  {100*c['4'][1]:.0f}%")
for v in "456":
    r = [cells[c][v][0] / cells[c]["0"][0] for c in cells if v in cells[c] and "0" in cells[c]]
    print(f"v{v}/v0 geo mean {math.exp(sum(map(math.log, r)) / len(r)):.4f} min {min(r):.3f} max {max(r):.3f} over {len(r)}")
for v in "56":
    r = [cells[c][v][0] / cells[c]["4"][0] for c in cells if v in cells[c] and "4" in cells[c]]
    print(f"v{v}/v4 geo mean {math.exp(sum(map(math.log, r)) / len(r)):.4f} min {min(r):.3f} max {max(r):.3f} over {len(r)}")
PY
cd $OUT && tar czf r.tgz r && rm -rf r
