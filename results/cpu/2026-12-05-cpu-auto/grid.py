#!/usr/bin/env python3
"""CPU `auto` (rtopk::auto: heap on rows at least 256 times longer than k, given up for bisect
past its budget; bisect elsewhere) against `bisect` and `heap` alone, through rtopk.topk on
NumPy arrays (unsorted output), 2^22 values a call (N = 2^22 / M rows), the best of 5 calls
after one warm-up; every auto answer checked equal to bisect's (indices and value bits).

    python3 grid.py grid     # standard-normal f32 over M = 64 ... 2^22, k = 1 ... 2048
    python3 grid.py families # seven families x f32 / f16 / bf16 on eleven shapes
"""
import sys
import time

import ml_dtypes
import numpy as np

import rtopk

TOTAL = 1 << 22
ALGOS = ["auto", "bisect", "heap"]


def best_ms(f, reps=5):
    f()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return min(ts) * 1e3


def family(name, n, m, rng):
    if name == "normal":
        return rng.standard_normal((n, m), dtype=np.float32)
    if name == "uniform":
        return rng.random((n, m), dtype=np.float32)
    if name == "relu":
        return np.maximum(rng.standard_normal((n, m), dtype=np.float32), 0)
    if name == "ties":
        return rng.integers(0, 4, (n, m)).astype(np.float32)
    if name == "ascending":
        return np.tile(np.arange(m, dtype=np.float32), (n, 1))
    if name == "descending":
        return np.tile(np.arange(m, 0, -1, dtype=np.float32), (n, 1))
    if name == "nan-inf":
        x = rng.standard_normal((n, m), dtype=np.float32)
        pick = rng.random((n, m))
        x[pick < 0.05] = np.nan
        x[(pick >= 0.05) & (pick < 0.08)] = np.inf
        x[(pick >= 0.08) & (pick < 0.10)] = -np.inf
        return x
    raise ValueError(name)


def cell(x, k):
    t = {a: best_ms(lambda a=a: rtopk.topk(x, k, algo=a, sorted=False)) for a in ALGOS}
    got, want = rtopk.topk(x, k, sorted=False), rtopk.topk(x, k, algo="bisect", sorted=False)
    same = np.array_equal(got.indices, want.indices) and got.values.tobytes() == want.values.tobytes()
    return t, same


def main():
    rng = np.random.default_rng(0)
    what = sys.argv[1] if len(sys.argv) > 1 else "grid"
    print("family dtype N M k " + " ".join(f"{a}_ms" for a in ALGOS) + " bisect/auto heap/auto path same")
    if what == "grid":
        cases = [("normal", "float32", m, k) for m in [64, 256, 1024, 4096, 16384, 65536, 1 << 18, 1 << 20, 1 << 22]
                 for k in [1, 8, 32, 128, 512, 2048] if k < m]
    else:
        shapes = [(1 << 22, 8), (1 << 22, 2048), (1 << 18, 64), (1 << 18, 512), (16384, 8), (16384, 64),
                  (4096, 1), (4096, 8), (256, 1), (256, 8), (256, 32)]
        cases = [(f, d, m, k) for f in ["normal", "uniform", "relu", "ties", "ascending", "descending", "nan-inf"]
                 for d in ["float32", "float16", "bfloat16"] for (m, k) in shapes]
    for fam, dt, m, k in cases:
        n = max(1, TOTAL // m)
        x = family(fam, n, m, rng)
        x = x.astype(ml_dtypes.bfloat16 if dt == "bfloat16" else np.dtype(dt))
        t, same = cell(x, k)
        path = "heap" if k * 256 <= m else "bisect"
        print(fam, dt, n, m, k, *(f"{t[a]:.3f}" for a in ALGOS), f"{t['bisect'] / t['auto']:.2f}",
              f"{t['heap'] / t['auto']:.2f}", path, "same" if same else "DIFFERENT", flush=True)


if __name__ == "__main__":
    main()
