"""Inputs of check.sh: rows whose radix select runs the sample (parts of eight tiles or more on
an H200: one row of 2^24, one of 2^25 + 3 (not whole tiles), two of 2^24 + 1) in normal,
ascending (the candidates crowd into the last parts: a block overflows), descending, striped
(every 32nd tile, the sampled ones, shifted up by 50: the sample's floor lies above the
row's k-th key, so the first pass's candidates miss) and hostile rows (heavy ties laced with
NaN of both signs, infinities and -0.0), f32; normal rows in f16. Every row is a different
draw."""
import os
import sys

import numpy as np

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
rng = np.random.default_rng(21)
TILE, EVERY = 4096, 32
for n, m in [(1, 1 << 24), (1, (1 << 25) + 3), (2, (1 << 24) + 1)]:
    x = rng.standard_normal((n, m), dtype=np.float32) * rng.uniform(0.1, 10.0, (n, 1)).astype(np.float32)
    np.save(f"{d}/normal_{n}x{m}.npy", x)
    np.save(f"{d}/ascending_{n}x{m}.npy", np.sort(x, axis=1))
    np.save(f"{d}/descending_{n}x{m}.npy", np.ascontiguousarray(np.sort(x, axis=1)[:, ::-1]))
    s = rng.standard_normal((n, m), dtype=np.float32)
    for t in range(0, m, TILE * EVERY):
        s[:, t : t + TILE] += 50.0
    np.save(f"{d}/striped_{n}x{m}.npy", s)
    t = rng.integers(0, 50, (n, m)).astype(np.float32)  # heavy ties
    t[:, ::97] = np.nan
    t[:, 5::101] = -np.nan
    t[:, 7::89] = np.inf
    t[:, 9::83] = -np.inf
    t[:, 11::79] = -0.0
    np.save(f"{d}/hostile_{n}x{m}.npy", t)
    np.save(f"{d}/normalf16_{n}x{m}.npy", rng.standard_normal((n, m), dtype=np.float32).astype(np.float16))
