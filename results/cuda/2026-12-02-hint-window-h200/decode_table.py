#!/usr/bin/env python3
"""Usage: decode_table.py DIR [NEW] — callb.sh's bench/decode.py runs (DIR/decode_{w6,NEW}_{i}.json, NEW
w7 unless given):
per shape the two builds' plain and hinted medians (µs, the mean of each build's runs), the
hinted speed-up, the hinted/plain iteration ratio, exactness; then the lengths mode (rows of
mean length M/4 against full rows)."""
import glob
import json
import statistics
import sys
from collections import defaultdict

NEW = sys.argv[2] if len(sys.argv) > 2 else "w7"
runs = defaultdict(lambda: defaultdict(list))
ragged = defaultdict(lambda: defaultdict(list))
exact = defaultdict(set)
for f in sorted(glob.glob(f"{sys.argv[1]}/decode_*_*.json")):
    build = f.split("decode_")[1].split("_")[0]
    try:
        rec = json.load(open(f))
    except (OSError, ValueError):
        continue
    for d in rec["decode"]:
        s = d["shape"]
        key = f"{s['n']} × {s['m']}, k = {s['k']}"
        runs[key][build].append((d["plain_us"], d["hinted_us"], d["iterations_ratio"], d["torch_us"]))
        exact[key].add(d["exact"])
    for g in rec.get("lengths", []):
        s = g["shape"]
        key = f"{s['n']} × {s['m']}, k = {s['k']}"
        ragged[key][build].append((g.get("lengths_us"), g.get("full_us")))
print(f"| shape | plain µs w6 | {NEW} | hinted µs w6 | {NEW} | hinted speed-up w6 | {NEW} | hinted/plain iterations | torch.topk µs | exact |")
print("|---|---|---|---|---|---|---|---|---|---|")
for key, b in runs.items():
    def mean(build, i):
        v = [r[i] for r in b.get(build, [])]
        return statistics.fmean(v) if v else float("nan")
    p6, p7, h6, h7 = mean("w6", 0), mean(NEW, 0), mean("w6", 1), mean(NEW, 1)
    print(f"| {key} | {p6:.1f} | {p7:.1f} | {h6:.1f} | {h7:.1f} | {p6 / h6:.3f} | {p7 / h7:.3f} | "
          f"{mean(NEW, 2):.2f} | {mean(NEW, 3):.1f} | {exact[key]} |")
if ragged:
    print()
    print(f"| shape (lengths mode) | ragged µs w6 | {NEW} | full µs w6 | {NEW} | ragged/full {NEW} |")
    print("|---|---|---|---|---|---|")
    for key, b in ragged.items():
        def rmean(build, i):
            v = [r[i] for r in b.get(build, []) if r[i] is not None]
            return statistics.fmean(v) if v else float("nan")
        r6, r7, f6, f7 = rmean("w6", 0), rmean(NEW, 0), rmean("w6", 1), rmean(NEW, 1)
        print(f"| {key} | {r6:.1f} | {r7:.1f} | {f6:.1f} | {f7:.1f} | {r7 / f7:.3f} |")
