import numpy as np, sys, os
d = sys.argv[1]; os.makedirs(d, exist_ok=True)
rng = np.random.default_rng(7)
for n, m in [(1, 262144), (4, 200000), (8, 500000), (2, 163841)]:
    np.save(f"{d}/normal_{n}x{m}.npy", rng.standard_normal((n, m), dtype=np.float32))
    t = rng.integers(0, 50, (n, m)).astype(np.float32)  # heavy ties
    t[:, ::97] = np.nan
    np.save(f"{d}/ties_{n}x{m}.npy", t)
    np.save(f"{d}/len_{n}x{m}.npy", rng.integers(0, m + 1, n).astype(np.int64))
