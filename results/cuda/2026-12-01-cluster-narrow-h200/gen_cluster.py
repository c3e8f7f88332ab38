"""Usage: gen_cluster.py DIR [narrow] — f32 inputs of cluster rows for the CLI (call a):
NAME_x.npy and NAME_k.txt for each shape below (with `narrow`, NARROW's: rows that
rtopk_cluster_rows_narrow takes, results/cuda/2026-12-02-cluster-narrow-entry-h200). "normal": N(0,1); "finite": N(0,1) with a tenth of the
values +-0.0 or subnormals of both signs (values a row narrows among); "ties": integers in
[-48, 48] (ties at the k-th value); "hostile": "finite" plus NaN of both signs and +-inf (no
value phase, so no narrowing)."""
import sys
import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(11)


def rows(dist, n, m):
    x = rng.standard_normal((n, m), dtype=np.float32)
    if dist == "ties":
        return rng.integers(-48, 49, size=(n, m)).astype(np.float32)
    if dist in ("finite", "hostile"):
        pick = rng.integers(0, 40, size=(n, m))
        sub = rng.integers(1, 0x800000, size=(n, m)).astype(np.uint32).view(np.float32)
        x = np.where(pick == 0, np.float32(0.0), x)
        x = np.where(pick == 1, np.float32(-0.0), x)
        x = np.where(pick == 2, sub, x)
        x = np.where(pick == 3, -sub, x)
        if dist == "hostile":
            specials = np.array([np.nan, -np.nan, np.inf, -np.inf], dtype=np.float32)
            x = np.where(pick == 4, specials[rng.integers(0, 4, size=(n, m))], x)
    return np.ascontiguousarray(x)


SHAPES = {
    "a": ("normal", 1, 100_000, 2048),
    "b": ("finite", 3, 50_000, 1000),
    "c": ("normal", 8, 100_000, 512),
    "d": ("normal", 1, 262_144, 2048),
    "e": ("finite", 2, 163_840, 2048),
    "f": ("ties", 1, 24_577, 100),
    "g": ("hostile", 1, 131_072, 64),
    "h": ("normal", 16, 131_072, 64),
}
NARROW = {
    "a": ("normal", 1, 100_000, 20),
    "b": ("finite", 3, 70_000, 64),
    "c": ("normal", 8, 100_000, 1),
    "d": ("normal", 1, 262_144, 64),
    "e": ("finite", 2, 163_840, 50),
    "f": ("ties", 1, 65_537, 60),
    "g": ("hostile", 1, 131_072, 64),
    "h": ("normal", 16, 131_072, 8),
}
if sys.argv[2:] == ["narrow"]:
    SHAPES = NARROW
for name, (dist, n, m, k) in SHAPES.items():
    np.save(f"{out}/{name}_x.npy", rows(dist, n, m))
    with open(f"{out}/{name}_k.txt", "w") as f:
        f.write(str(k))
print("generated", " ".join(f"{k}={v}" for k, v in SHAPES.items()))
