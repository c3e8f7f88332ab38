#!/usr/bin/env python3
"""The share.py runs of a folder, side by side: each case's exact and counted ms for the
committed build (w16) and a variant, the variant over w16 (the mean of the runs each), and the
geometric mean of those ratios by dtype.

    python3 table.py DIR VARIANT      # DIR holds share_w16_<r>.txt and share_<VARIANT>_<r>.txt
"""
import glob
import math
import sys
from collections import defaultdict


def runs(folder, wheel):
    """{(m, k, dtype): ([exact ms], [counted ms])} over the runs found."""
    out = defaultdict(lambda: ([], []))
    for path in sorted(glob.glob(f"{folder}/share_{wheel}_*.txt")):
        for line in open(path):
            f = line.split()
            if len(f) < 9 or f[0] == "n":
                continue
            key = (int(f[1]), int(f[2]), f[3])
            out[key][0].append(float(f[4]))
            out[key][1].append(float(f[8]))
    return out


def main():
    folder, variant = sys.argv[1], sys.argv[2]
    base, new = runs(folder, "w16"), runs(folder, variant)
    mean = lambda v: sum(v) / len(v)
    by_type = defaultdict(lambda: ([], []))
    print(f"| M | k | dtype | w16 exact | {variant} exact | ratio | w16 counted | {variant} counted | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for key in sorted(base):
        if key not in new:
            continue
        (be, bc), (ne, nc) = base[key], new[key]
        re, rc = mean(ne) / mean(be), mean(nc) / mean(bc)
        by_type[key[2]][0].append(re)
        by_type[key[2]][1].append(rc)
        print(f"| {key[0]} | {key[1]} | {key[2]} | {mean(be):.4f} | {mean(ne):.4f} | {re:.3f} "
              f"| {mean(bc):.4f} | {mean(nc):.4f} | {rc:.3f} |")
    print()
    for t, (e, c) in by_type.items():
        g = lambda v: math.exp(sum(map(math.log, v)) / len(v))
        print(f"{t}: exact {g(e):.3f} ({min(e):.3f}-{max(e):.3f}), counted {g(c):.3f} "
              f"({min(c):.3f}-{max(c):.3f})")


if __name__ == "__main__":
    main()
