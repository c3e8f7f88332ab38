"""Inputs of check.sh: split rows (past the wide clusters) in orders that make a split's
floor cut every chunk after the first (descending), none (ascending) or some (shuffled), with
hostile values and heavy ties; f32 and f16."""
import os
import sys

import numpy as np

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
rng = np.random.default_rng(11)
for n, m in [(1, 1 << 22), (3, 3_000_001)]:
    x = rng.standard_normal((n, m), dtype=np.float32)
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
