"""Inputs of check.sh beside the radix record's gen.py (../2026-11-30-radix-rows-h200/gen.py):
rows whose candidates (the keys of the k-th key's first 11-bit digit) do not fit an eighth of
the row — uniform on [0.5, 1), where the top digit's bucket holds a quarter of the row, and
rows of one value — and rows that fit with heavy ties at the k-th value (f32 rounded to bf16's
8 bits of precision, so a value repeats hundreds of times), f32 and f16."""
import os
import sys

import numpy as np

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
rng = np.random.default_rng(21)
for n, m in [(1, 1 << 22), (3, 3_000_001)]:
    u = rng.uniform(0.5, 1.0, (n, m)).astype(np.float32)
    np.save(f"{d}/uniformhalf_{n}x{m}.npy", u)
    np.save(f"{d}/uniformhalff16_{n}x{m}.npy", u.astype(np.float16))
    np.save(f"{d}/constant_{n}x{m}.npy", np.full((n, m), 0.25, dtype=np.float32))
    x = rng.standard_normal((n, m), dtype=np.float32)
    b = (x.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)  # bf16's precision
    np.save(f"{d}/bf16rounded_{n}x{m}.npy", b)
