"""Usage: one_table.py DIR [cells] — the single shapes of call.sh (DIR/one_{old,new}_{run}_
{N}x{M}[_sorted].json, `rtopk bench cuda --json`): a markdown table, µs, each run's new/old and
the two runs' means; with `cells`, the new build's first run as one JSON array on stdout (the
input of bench/torch_topk.py)."""
import glob
import json
import sys
from collections import defaultdict

DIR = sys.argv[1]
runs = defaultdict(dict)
for f in glob.glob(f"{DIR}/one_*_*_*x*.json"):
    build, run = f.split("/one_")[1].split("_")[:2]
    try:
        cases = json.load(open(f))
    except (OSError, ValueError):
        continue
    for c in cases:
        key = (c["n"], c["m"], c["k"], bool(c.get("sorted")))
        runs[key][(build, run)] = c["median_ms"] * 1000
if sys.argv[2:] == ["cells"]:
    cells = []
    for f in sorted(glob.glob(f"{DIR}/one_new_1_*x*.json")):
        cells += json.load(open(f))
    print(json.dumps(cells))
    sys.exit(0)
print("| shape | k | sorted | old µs | new µs | new / old, run 1 | run 2 | run 3 | mean |")
print("|---|---|---|---|---|---|---|---|---|")
for (n, m, k, srt), t in sorted(runs.items()):
    pairs = [(t[("old", r)], t[("new", r)]) for r in ("1", "2", "3") if ("old", r) in t and ("new", r) in t]
    if not pairs:
        continue
    o = sum(p[0] for p in pairs) / len(pairs)
    w = sum(p[1] for p in pairs) / len(pairs)
    ratios = " | ".join(f"{b / a:.3f}" for a, b in pairs) + (" | –" * (3 - len(pairs)))
    print(f"| {n} × {m} | {k} | {'yes' if srt else ''} | {o:.1f} | {w:.1f} | {ratios} | {w / o:.3f} |")
