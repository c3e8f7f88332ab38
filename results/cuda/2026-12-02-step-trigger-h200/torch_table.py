"""Usage: torch_table.py DIR — the single shapes of variant_ab.sh (DIR/one_new_*.json) beside
torch.topk's times on them (DIR/torch.json, bench/torch_topk.py): a markdown table, µs, the
new build's mean over its runs, torch.topk unsorted and sorted, and torch.topk / rtopk."""
import glob
import json
import sys
from collections import defaultdict

DIR = sys.argv[1]
ours = defaultdict(list)
for f in glob.glob(f"{DIR}/one_new_*_*x*.json"):
    for c in json.load(open(f)):
        if not c.get("sorted"):
            ours[(c["n"], c["m"], c["k"])].append(c["median_ms"] * 1000)
torch = {(r["n"], r["m"], r["k"], r["sorted"]): r["median_ms"] * 1000 for r in json.load(open(f"{DIR}/torch.json"))}
print("| shape | k | rtopk µs | torch.topk µs (sorted=False) | sorted=True | torch / rtopk |")
print("|---|---|---|---|---|---|")
for (n, m, k), t in sorted(ours.items()):
    us = sum(t) / len(t)
    tu, ts = torch.get((n, m, k, False)), torch.get((n, m, k, True))
    if tu is None:
        continue
    print(f"| {n} × {m} | {k} | {us:.1f} | {tu:.1f} | {ts:.1f} | {tu / us:.2f}× |")
