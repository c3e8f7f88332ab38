"""Usage: rounds.py DIR — the medians of the ROUND lines of variants.py's st3 in each
DIR/rounds_*.txt: for each whole-row count of thread 0 of block 0 (in order), the cycles of its
own compares and the block's sum (own+sum) and of the cluster barrier after them (cluster)."""
import glob
import statistics
import sys
from collections import defaultdict

for f in sorted(glob.glob(sys.argv[1] + "/rounds_*.txt")):
    by = defaultdict(list)
    for line in open(f):
        if line.startswith("ROUND"):
            t = line.split()
            by[int(t[1])].append((int(t[3]), int(t[5])))
    print("##", f.split("/")[-1])
    for i in sorted(by):
        own = statistics.median(a for a, _ in by[i])
        clu = statistics.median(b for _, b in by[i])
        print(f"count {i}: own+sum {own:.0f} cluster {clu:.0f} (n {len(by[i])})")
