"""A sweep's comparison (`c/sweep.txt` ... `h/sweep.txt`: round, build, n, m, then medians in
µs — one bare, at k = 2048 (call c), or `k:median` pairs): the better of each build's two
rounds, new / old time, cell by cell, and their geometric mean.

    python3 sweep_compare.py SWEEP OLD NEW     (e.g. c/sweep.txt 7 9, e/sweep.txt 9 11)
"""

import collections
import math
import sys

path, old, new = sys.argv[1:4]
times = collections.defaultdict(list)
for line in open(path):
    _, build, n, m, *cells = line.split()
    for cell in cells:
        k, t = cell.split(":") if ":" in cell else ("2048", cell)
        times[(int(m), int(n), int(k), build)].append(float(t))
ratios = []
for m, n, k in sorted({key[:3] for key in times}, reverse=True):
    a, b = min(times[(m, n, k, old)]), min(times[(m, n, k, new)])
    ratios.append(b / a)
    print(f"{n:3d} x {m:6d}, k = {k:4d}: {a:6.1f} -> {b:6.1f} us  {b / a:.3f}")
geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
print(f"{len(ratios)} cells: {geo:.3f} ({min(ratios):.3f}-{max(ratios):.3f})")
