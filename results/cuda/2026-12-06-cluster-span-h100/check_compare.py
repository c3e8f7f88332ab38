"""Call d's comparison: `clusters_check.py` logs (one JSON object a cell: dtype, n, m, k,
rtopk_ms) of two builds, two rounds each; the better of each build's rounds, new / old time,
cell by cell, and their geometric mean.

    python3 check_compare.py OLD_1 OLD_2 NEW_1 NEW_2
"""

import json
import math
import sys


def load(path: str) -> dict:
    with open(path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return {(r["dtype"], r["n"], r["m"], r["k"]): r["rtopk_ms"] for r in rows}


def best(a: dict, b: dict) -> dict:
    return {key: min(a[key], b[key]) for key in a}


old = best(load(sys.argv[1]), load(sys.argv[2]))
new = best(load(sys.argv[3]), load(sys.argv[4]))
ratios = []
for key in sorted(old):
    ratios.append(new[key] / old[key])
    print(*key, f"{old[key] * 1000:.1f} -> {new[key] * 1000:.1f} us  {ratios[-1]:.3f}")
geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
print(f"{len(ratios)} cells: {geo:.3f} ({min(ratios):.3f}-{max(ratios):.3f})")
