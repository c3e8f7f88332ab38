"""Differential fuzz of rtopk.topk on NumPy against an independent reading of docs/contract.md §1, §5."""
import os
import sys
import warnings

import numpy as np
import rtopk

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen import matrix  # noqa: E402
from ref import bits, reference  # noqa: E402

warnings.simplefilter("ignore")
INTS = ["int8", "uint8", "int16", "int32", "int64"]
INFO = {a.name: a for a in rtopk.algorithms() if a.name != "cuda"}
ALGOS = list(INFO)
DTNAME = {"f4": "float32", "f2": "float16", "bf16": "bfloat16", "f8": "float64"}


def make(rng, n, m, dt):
    if dt in ("f4", "f2", "bf16"):
        return matrix(rng, n, m, dt)
    if dt == "f8":
        x = matrix(rng, n, m, "f4").astype(np.float64)
        if rng.random() < 0.5 and n * m:
            x.ravel()[rng.integers(0, n * m, size=3)] = [5e-324, -1e308, 1e300]
        return x
    info = np.iinfo(dt)
    if rng.random() < 0.5:
        return rng.integers(info.min, info.max, size=(n, m), dtype=dt, endpoint=True)
    return rng.integers(max(info.min, -3), 4, size=(n, m)).astype(dt)


def case(rng, c):
    dt = str(rng.choice(["f4", "f2", "bf16", "f8", *INTS]))
    n = int(rng.choice([0, 1, 3, 17]))
    m = int(rng.choice([1, 2, 31, 33, 100, 513, 2100]))
    x2 = make(rng, n, m, dt)
    algo = str(rng.choice(ALGOS + ["auto"] * 3))
    if algo != "auto" and DTNAME.get(dt, dt) not in INFO[algo].dtypes:
        algo = "auto"
    smallest = bool(rng.random() < 0.3)
    sorted_ = bool(rng.random() < 0.5)
    kw = {"algo": algo, "return_threshold": True}
    per_row = rng.random() < 0.4
    if per_row:
        ks = rng.integers(0, m + 1, size=n)
        k = ks.astype(rng.choice(["int64", "int32", "uint16"]) if m < 60000 else "int64")
        width = int(ks.max()) if n else 0
        if rng.random() < 0.3:
            width = width + int(rng.integers(0, 3))
            kw["width"] = width
    else:
        k = int(rng.choice([0, 1, max(m - 1, 0), m, int(rng.integers(0, m + 1))]))
        ks = np.full(n, k)
        width = k
    lengths = None
    if rng.random() < 0.4:
        lengths = rng.integers(0, m + 1, size=n)
        kw["lengths"] = lengths.astype(rng.choice(["int64", "int32"]))
    if rng.random() < 0.3:
        kw["hint"] = rng.choice([np.nan, np.inf, -np.inf, 0.0, 1.5, -1e30], size=n).astype(np.float32)
    if rng.random() < 0.2:
        kw["indices_dtype"] = np.int32
    # layout: sometimes a 3-D array with the row axis elsewhere
    x, dim = x2, -1
    if rng.random() < 0.3 and n > 0 and not per_row and lengths is None and "hint" not in kw:
        x = np.ascontiguousarray(x2.T)  # rows along axis 0
        dim = 0
    desc = f"case {c}: {dt} n={n} m={m} algo={algo} k={'per-row' if per_row else k} smallest={smallest} sorted={sorted_} dim={dim} kw={ {a: (b if np.isscalar(b) else 'arr') for a, b in kw.items()} }"
    try:
        r = rtopk.topk(x, k, dim, not smallest, sorted_, **kw)
    except (TypeError, ValueError) as e:
        return f"{desc}\n  raised {type(e).__name__}: {e}", True
    v, i, t = r.values, r.indices, r.threshold
    if dim == 0:
        v, i = v.T, i.T
    rv, ri, rt = reference(x2, ks, smallest, sorted_, lengths, width)
    if v.dtype != x2.dtype or v.shape != rv.shape:
        return f"{desc}\n  shape/dtype {v.dtype}{v.shape} vs {rv.dtype}{rv.shape}", False
    want_idx = np.int32 if kw.get("indices_dtype") is np.int32 else np.int64
    if i.dtype != want_idx:
        return f"{desc}\n  index dtype {i.dtype}", False
    if not np.array_equal(i.astype(np.int64), ri):
        bad = np.nonzero((i != ri).any(axis=1))[0][:3]
        return f"{desc}\n  indices rows {bad}: {i[bad[0]][:8]} want {ri[bad[0]][:8]}", False
    if not np.array_equal(bits(v), bits(rv)):
        return f"{desc}\n  value bits", False
    same = (np.isnan(t) & np.isnan(rt)) | (bits(t) == bits(rt))
    if not same.all():
        bad = np.nonzero(~same)[0][:3]
        return f"{desc}\n  threshold rows {bad}: {t[bad]} want {rt[bad]}", False
    return None, False


def main():
    seed, cases = int(sys.argv[1]), int(sys.argv[2])
    rng = np.random.default_rng(seed)
    fails, refused = 0, {}
    for c in range(cases):
        err, is_raise = case(rng, c)
        if err and is_raise:
            key = err.split("\n")[1][:120]
            refused.setdefault(key, err)
        elif err:
            fails += 1
            print("FAIL", err, flush=True)
            if fails > 15:
                break
    print("refusals (first of each kind):")
    for kind, e in refused.items():
        print(" ", e.replace("\n", " | ")[:600])
    print(f"seed {seed}: {cases} cases, {fails} failures")


if __name__ == "__main__":
    main()
