"""Usage: twice.py DIR — the medians of the STAGES lines of variants.py's st2 (each block running
its row twice in one launch) in each DIR/twice_*.txt: per block rank, each pass's cycles by
stage. A rank's lines alternate first pass, second pass (one thread prints them in order)."""
import glob
import statistics
import sys

KEYS = ["load", "sync0", "range", "value", "rest", "classify", "before", "emit", "total"]
for f in sorted(glob.glob(sys.argv[1] + "/twice_*.txt")):
    seen = {}
    for line in open(f):
        if line.startswith("STAGES"):
            t = line.split()
            d = {t[i]: t[i + 1] for i in range(1, len(t) - 1, 2)}
            lines = seen.setdefault(d["rank"], [])
            lines.append(d)
    print("##", f.split("/")[-1])
    for rank, ds in seen.items():
        for pass_ in (0, 1):
            part = ds[pass_::2]
            med = {k: statistics.median(int(d[k]) for d in part) for k in KEYS}
            print(f"rank {rank} pass {pass_ + 1} it {part[0]['it']} "
                  + " ".join(f"{k} {med[k]:.0f}" for k in KEYS) + f" n {len(part)}")
