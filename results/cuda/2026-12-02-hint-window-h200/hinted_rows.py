#!/usr/bin/env python3
"""Usage: hinted_rows.py DIR — writes DIR/h1.npy, DIR/h2.npy with their hints and mode
arguments (callb.sh's hinted CLI calls over clusters); hinted_rows.py DIR CASE — checks the
sanitized call's outputs (memcheck's) against bisect's, bit for bit.

h1: 4 x 40000 N(0,1) rows, k = 2048 largest; hints: the threshold of the row after 2 % of its
values were redrawn (a decode step's), the row's own threshold, NaN, one far below (-3.5).
h2: 3 x 49152 rows of forty values (ties straddle the window's ends), k = 2048 smallest;
hints: the own threshold, the next value up, +inf."""
import os
import sys

import numpy as np

d = sys.argv[1]
if len(sys.argv) == 2:
    os.makedirs(d, exist_ok=True)
    r = np.random.default_rng(7)
    x = r.standard_normal((4, 40000)).astype(np.float32)
    y = x.copy()
    redraw = r.random(y.shape) < 0.02
    y[redraw] = r.standard_normal(int(redraw.sum())).astype(np.float32)
    kth = lambda a: np.sort(a, axis=1)[:, -2048]
    h = np.array([kth(y)[0], kth(x)[1], np.nan, -3.5], dtype=np.float32)
    np.save(f"{d}/h1.npy", x)
    np.save(f"{d}/h1_hint.npy", h)
    open(f"{d}/h1_mode.txt", "w").write("")
    z = (r.integers(0, 40, (3, 49152)) * 0.25).astype(np.float32)
    t = np.sort(z, axis=1)[:, 2047]
    np.save(f"{d}/h2.npy", z)
    np.save(f"{d}/h2_hint.npy", np.array([t[0], t[1] + 0.25, np.inf], dtype=np.float32))
    open(f"{d}/h2_mode.txt", "w").write("--smallest")
    print("inputs written: h1 4 x 40000 (k = 2048), h2 3 x 49152 (k = 2048, smallest)")
    sys.exit(0)
c = sys.argv[2]
same = all(
    np.load(f"{d}/s{o}_{c}_memcheck.npy").view(np.uint32).tolist()
    == np.load(f"{d}/b{o}_{c}.npy").view(np.uint32).tolist()
    for o in ("v", "i", "t")
)
print(f"{c}: values, indices and thresholds equal to bisect's, bit for bit: {same}")
