#!/usr/bin/env python3
"""Summary of ab.py's runs: the committed rule (w3) against this one (w4), the best of four
runs each; cells grouped by what the new rule runs (rtopk.auto.row_algo, restated here)."""
import json
import math

WIDE = {"float32", "float64", "int32", "int64"}


def new_algo(dt, m, k):
    wide = dt in WIDE
    if k == 1 and m < (1024 if wide else 1 << 19):
        return "bucket"
    if m >= (1024 if wide else 16384) and k * 256 <= m:
        return "heap"
    return "bisect"


def best(w):
    out = {}
    for r in (1, 2, 3, 4):
        for line in open(f"ab_{w}_{r}.jsonl"):
            c = json.loads(line)
            key = (c["dtype"], c["m"], c["k"])
            assert c["same"], key
            o = out.setdefault(key, dict(c))
            o["auto"] = min(o["auto"], c["auto"])
            o["bisect"] = min(o["bisect"], c["bisect"])
    return out


old, new = best("w3"), best("w4")
groups = {}
for key in old:
    dt, m, k = key
    changed = new_algo(dt, m, k) != ("heap" if m >= 16384 and k * 256 <= m else "bisect")
    label = (new_algo(dt, m, k), "changed" if changed else "same rule")
    groups.setdefault(label, []).append((key, new[key]["auto"] / old[key]["auto"]))
for label, rows in sorted(groups.items()):
    rs = [r for _, r in rows]
    g = math.exp(sum(map(math.log, rs)) / len(rs))
    worst = max(rows, key=lambda x: x[1])
    best_ = min(rows, key=lambda x: x[1])
    print(f"{label[0]:7s} {label[1]:9s} cells {len(rs):3d}  new/old auto: geomean {g:.3f}, "
          f"best {best_[1]:.2f} {best_[0]}, worst {worst[1]:.2f} {worst[0]}")
print("every answer equal to bisect's in all four runs")
