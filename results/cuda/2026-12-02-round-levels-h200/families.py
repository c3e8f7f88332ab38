"""Usage: families.py DIR — DIR/fam_{old,new}_{run}_*.json (`rtopk bench cuda --dist ... --json`):
per shape, k and input family, the two builds' mean µs over their runs and new / old."""
import glob
import json
import statistics
import sys
from collections import defaultdict

t = defaultdict(lambda: defaultdict(list))
for f in glob.glob(sys.argv[1] + "/fam_*.json"):
    build = f.split("/fam_")[1].split("_")[0]
    try:
        cases = json.load(open(f))
    except (OSError, ValueError):
        continue
    for c in cases:
        t[(c["n"], c["m"], c["k"], c.get("input", ""))][build].append(c["median_ms"] * 1000)
print("| shape | k | input | old µs | new µs | new / old |")
print("|---|---|---|---|---|---|")
for key in sorted(t):
    if not (t[key]["old"] and t[key]["new"]):
        continue
    o, w = statistics.mean(t[key]["old"]), statistics.mean(t[key]["new"])
    print(f"| {key[0]} × {key[1]} | {key[2]} | {key[3]} | {o:.1f} | {w:.1f} | {w / o:.3f} |")
