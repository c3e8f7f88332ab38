"""Inputs of check.sh: rows that split into chunks taken chunk-major, with the floor — one
long row (1 x 2^22), three rows of 3000001 (a last chunk of its own), and many rows (48 x
300000, 200 x 140001) in orders that make a row's floor cut every chunk after the first
(descending), none (ascending) or some (normal), with hostile values and heavy ties; f32 and
f16. Every row is a different draw, so rows' floors differ."""
import os
import sys

import numpy as np

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
rng = np.random.default_rng(12)
for n, m in [(1, 1 << 22), (3, 3_000_001), (48, 300_000), (200, 140_001)]:
    x = rng.standard_normal((n, m), dtype=np.float32) * rng.uniform(0.1, 10.0, (n, 1)).astype(np.float32)
    np.save(f"{d}/normal_{n}x{m}.npy", x)
    np.save(f"{d}/normalf16_{n}x{m}.npy", x.astype(np.float16))
    np.save(f"{d}/ascending_{n}x{m}.npy", np.sort(x, axis=1))
    np.save(f"{d}/descending_{n}x{m}.npy", np.ascontiguousarray(np.sort(x, axis=1)[:, ::-1]))
    t = rng.integers(0, 50, (n, m)).astype(np.float32)  # heavy ties
    t[:, ::97] = np.nan
    t[:, 5::101] = -np.nan
    t[:, 7::89] = np.inf
    t[:, 9::83] = -np.inf
    t[:, 11::79] = -0.0
    np.save(f"{d}/hostile_{n}x{m}.npy", t)
