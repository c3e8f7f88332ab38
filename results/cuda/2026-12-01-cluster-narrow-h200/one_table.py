"""Usage: one_table.py DIR [NEW] — the single-shape times of calls b and c
(DIR/one_{build}_{run}_{N}x{M}.json, `rtopk bench cuda --json`): a markdown table, µs, each
build's two runs' mean, the new build (NEW: c2 unless given) over HEAD's (q3)."""
import glob
import json
import sys
from collections import defaultdict

NEW = sys.argv[2] if len(sys.argv) > 2 else "c2"

times = defaultdict(list)
for f in glob.glob(f"{sys.argv[1]}/one_*_*_*x*.json"):
    build = f.split("/one_")[1].split("_")[0]
    for c in json.load(open(f)):
        times[(build, c["n"], c["m"], c["k"])].append(c["median_ms"] * 1000)
print("| shape | k | HEAD µs | narrowed µs | narrowed / HEAD |")
print("|---|---|---|---|---|")
for (build, n, m, k) in sorted(k for k in times if k[0] == "q3"):
    old, new = times[("q3", n, m, k)], times.get((NEW, n, m, k), [])
    if not new:
        continue
    o, w = sum(old) / len(old), sum(new) / len(new)
    print(f"| {n} × {m} | {k} | {o:.1f} | {w:.1f} | {w / o:.3f} |")
