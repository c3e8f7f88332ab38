"""Inputs of check.sh: rows the radix select takes (rtopk-plan's radix: rows of 2^20 and more,
k of 4096 and more) — one long row (1 x 2^22), three rows of 3000001 (not whole tiles), two
rows of 2^20 + 1 — in normal, ascending and descending order, f32 and f16, and hostile rows of
heavy ties laced with NaN of both signs, infinities and -0.0. Every row is a different draw."""
import os
import sys

import numpy as np

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
rng = np.random.default_rng(20)
for n, m in [(1, 1 << 22), (3, 3_000_001), (2, (1 << 20) + 1)]:
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
