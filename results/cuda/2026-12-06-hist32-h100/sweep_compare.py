"""Call c's sweep (`c/sweep.txt`: round, build, n, m, median µs a line): the better of each
build's two rounds, new (9) / old (7) time, cell by cell.

    python3 sweep_compare.py c/sweep.txt
"""

import collections
import sys

times = collections.defaultdict(list)
for line in open(sys.argv[1]):
    _, build, n, m, t = line.split()[:5]
    times[(int(m), int(n), build)].append(float(t))
for m, n in sorted({(m, n) for m, n, _ in times}, reverse=True):
    old, new = min(times[(m, n, "7")]), min(times[(m, n, "9")])
    print(f"{n:3d} x {m:6d}: {old:6.1f} -> {new:6.1f} us  {new / old:.3f}")
