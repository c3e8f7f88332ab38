"""Usage: gen_ragged.py DIR — inputs of ragged radix selects for the CLI (call b): X.npy float32
rows of hostile values (NaN of both signs, ±inf, ±0, subnormals, heavy ties, normals), with
lengths and k per row (lengths 0, 1, M and ones inside a block's part; k 0, 2, above the
length)."""
import sys
import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(7)


def hostile(n, m):
    x = rng.standard_normal((n, m), dtype=np.float32)
    pick = rng.integers(0, 16, size=(n, m))
    ties = rng.integers(0, 7, size=(n, m)).astype(np.float32)
    x = np.where((pick >= 1) & (pick <= 5), ties, x)
    specials = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -3e-45], dtype=np.float32)
    x = np.where(pick == 0, specials[rng.integers(0, len(specials), size=(n, m))], x)
    return np.ascontiguousarray(x)


for name, (n, m, lengths, ks) in {
    "one": (1, 1 << 20, [(1 << 18) + 7], [2048]),
    "five": (5, (1 << 20) + 3, [(1 << 18) + 7, 0, (1 << 20) + 3, 1, (1 << 19) + 3], [600, 600, 301, 2, 0]),
}.items():
    x = hostile(n, m)
    for r, length in enumerate(lengths):
        x[r, length:] = np.nan  # NaN past the length: never selected
    np.save(f"{out}/{name}_x.npy", x)
    np.save(f"{out}/{name}_x16.npy", x.astype(np.float16))
    np.save(f"{out}/{name}_len.npy", np.array(lengths, dtype=np.int64))
    np.save(f"{out}/{name}_k.npy", np.array(ks, dtype=np.int64))
