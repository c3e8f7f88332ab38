"""Usage: groups.py DIR — the grids of a call.sh (DIR/grid_{old,new}_{run}.json, `rtopk bench cuda
--json`), new/old per case as the geometric mean over the runs, then grouped: few long rows
(N <= 256, M >= 16384: the programs of several steps and the cluster rows) against the rest,
sorted or not, early stopping apart; and the few long rows by width M."""
import glob
import json
import math
import sys
from collections import defaultdict


def load(path):
    return {(r["n"], r["m"], r["k"], r.get("max_iter"), bool(r.get("sorted"))): r["median_ms"]
            for r in json.load(open(path))}


def geo(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


ratios = defaultdict(list)
for old_path in sorted(glob.glob(f"{sys.argv[1]}/grid_old_*.json")):
    old, new = load(old_path), load(old_path.replace("grid_old_", "grid_new_"))
    for key in old.keys() & new.keys():
        ratios[key].append(new[key] / old[key])
kinds, widths = defaultdict(list), defaultdict(list)
for (n, m, k, it, srt), r in ratios.items():
    few = n <= 256 and m >= 16384
    kinds[("sorted" if srt else "unsorted") + (", few long rows" if few else ", many rows")
          + (", early stopping" if it is not None else "")].append(geo(r))
    if few:
        widths[m].append(geo(r))
print("| cases | count | new/old geometric mean | lowest | highest |")
print("|---|---|---|---|---|")
for name, v in sorted(kinds.items()) + [(f"few long rows, M = {m}", v) for m, v in sorted(widths.items())]:
    print(f"| {name} | {len(v)} | {geo(v):.4f} | {min(v):.3f} | {max(v):.3f} |")
