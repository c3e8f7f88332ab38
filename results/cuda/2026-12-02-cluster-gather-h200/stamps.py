"""Usage: stamps.py DIR — the medians of the STAGES lines (variants.py's stamps) of each
DIR/stamps_*.txt, per block rank: cycles of each stage, and the first launch's iteration
counts (it4: at the search's first exit; n4: the count at the bracket's lower end then)."""
import glob
import statistics
import sys

KEYS = ["load", "sync0", "range", "value", "rest", "classify", "before", "emit", "total"]
for f in sorted(glob.glob(sys.argv[1] + "/stamps_*.txt")):
    rows = {}
    for line in open(f):
        if line.startswith("STAGES"):
            t = line.split()
            d = {t[i]: t[i + 1] for i in range(1, len(t) - 1, 2)}
            rows.setdefault(d["rank"], []).append(d)
    print("##", f.split("/")[-1])
    for rank, ds in rows.items():
        med = {k: statistics.median(int(d[k]) for d in ds) for k in KEYS}
        first = ds[0]
        print(f"rank {rank} thr {first['thr']} it4 {first['it4']} n4 {first['n4']} it {first['it']} "
              f"exit {first['exit']} " + " ".join(f"{k} {med[k]:.0f}" for k in KEYS) + f" n {len(ds)}")
