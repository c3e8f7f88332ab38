"""Call a's comparison: two runs of each build's `rtopk bench cuda --json` (the log of a step:
a line of registers, then the JSON array), the better median of each cell, new / old time.

    python3 grid_compare.py OLD_1 OLD_2 NEW_1 NEW_2 [v]   (v: every cell)
"""

import json
import math
import sys


def load(path: str) -> dict:
    s = open(path).read()
    rows = json.loads(s[s.index("["):])
    return {(r["n"], r["m"], r["k"], r["sorted"]): r["median_ms"] for r in rows}


def best(a: dict, b: dict) -> dict:
    return {key: min(a[key], b[key]) for key in a}


old = best(load(sys.argv[1]), load(sys.argv[2]))
new = best(load(sys.argv[3]), load(sys.argv[4]))
ratios = []
for key in sorted(old):
    ratios.append(new[key] / old[key])
    if len(sys.argv) > 5:
        print(key, f"{old[key] * 1000:.1f} -> {new[key] * 1000:.1f} us  {ratios[-1]:.3f}")
geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
print(f"cells {len(ratios)} geo {geo:.3f} min {min(ratios):.3f} max {max(ratios):.3f}")
