"""The record's table: every cell of the call's grids, the paired steps' kernels ("now") against
the kernel files before them ("before", `--kernel-dir`, the same binary), geometric mean of the
call's two alternated runs each; the cells whose program has a cluster step (`clusters.txt`,
from `rtopk plan --gpu h200`) listed, then the geometric mean of now / before over the cluster
cells and over the others.

    python3 table.py LOGS_DIR CLUSTERS_TXT    (grid_new_{1,2}.json, grid_old_{1,2}.json)"""
import json
import math
import sys

d, clusters_txt = sys.argv[1], sys.argv[2]
clusters = {tuple(int(v) for v in line.split()) for line in open(clusters_txt) if line.strip()}


def load(f):
    return {(r["n"], r["m"], r["k"], r["sorted"], r["max_iter"]): r for r in json.load(open(f))}


new = [load(f"{d}/grid_new_{i}.json") for i in (1, 2)]
old = [load(f"{d}/grid_old_{i}.json") for i in (1, 2)]


def geo(runs, key):
    return math.sqrt(runs[0][key]["median_ms"] * runs[1][key]["median_ms"])


def gmean(v):
    return math.exp(sum(math.log(r) for r in v) / len(v)) if v else float("nan")


print("| shape | k | sorted | before µs | now µs | now / before |")
print("|---|---|---|---|---|---|")
inside, outside = [], []
for key in sorted(new[0], key=lambda t: (t[1], t[0], t[2], t[3], -1 if t[4] is None else t[4])):
    if any(key not in r for r in (old[0], new[1], old[1])):
        continue
    n, m, k, s, it = key
    nw, od = geo(new, key), geo(old, key)
    if (n, m, k, int(s)) in clusters and it is None:
        inside.append(nw / od)
        print(f"| {n} × {m} | {k} | {'yes' if s else 'no'} | {1000 * od:.1f} | {1000 * nw:.1f} | {nw / od:.3f} |")
    else:
        outside.append(nw / od)
print(f"\ncluster cells ({len(inside)}): now / before geometric mean {gmean(inside):.4f}, "
      f"range {min(inside, default=0):.3f}–{max(inside, default=0):.3f}")
print(f"other cells ({len(outside)}): now / before geometric mean {gmean(outside):.4f}, "
      f"range {min(outside, default=0):.3f}–{max(outside, default=0):.3f}")
