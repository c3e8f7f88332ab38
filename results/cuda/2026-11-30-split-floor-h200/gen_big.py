"""Inputs of call c's check: rows past FLOOR_MIN_ROW (2^25), where the default route takes the
floor: shuffled normal and descending (every chunk after the first cut at the floor)."""
import os
import sys

import numpy as np

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
rng = np.random.default_rng(12)
x = rng.standard_normal((1, (1 << 25) + 5), dtype=np.float32)
np.save(f"{d}/normal_1x33554437.npy", x)
np.save(f"{d}/descending_1x33554437.npy", np.ascontiguousarray(np.sort(x, axis=1)[:, ::-1]))
np.save(f"{d}/normalf16_1x33554437.npy", x.astype(np.float16))
