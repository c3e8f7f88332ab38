#!/usr/bin/env python3
"""`rtopk.topk(x, k, algo="auto")` on the CPU with the wheel on PYTHONPATH, over the cells of
grid.py (f32, f16, bf16; M = 64 ... 16384; k = 1 ... 64, k <= M/2) and grid2.py's other types
(int8, int16, int32, int64, float64; M = 256 ... 8192), 2^21 values a call, N(0, 1) draws (the
integers uniform over their range), median of 9 calls after one warm-up; `bisect` beside it.
Every answer equal to bisect's (indices and value bits).

    PYTHONPATH=SITE python3 ab.py > FILE.jsonl
"""
import json
import time

import ml_dtypes
import numpy as np

import rtopk

TOTAL = 1 << 21


def timed(f, reps=9):
    f()
    ts = []
    for _ in range(reps):
        a = time.perf_counter()
        f()
        ts.append(time.perf_counter() - a)
    return sorted(ts)[len(ts) // 2] * 1e3


def make(rng, dt, n, m):
    if dt.startswith("int"):
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, (n, m), dtype=dt, endpoint=True)
    x = rng.standard_normal((n, m), dtype=np.float32)
    return x.astype(ml_dtypes.bfloat16) if dt == "bfloat16" else x.astype(dt)


def cells():
    for dt in ("float32", "float16", "bfloat16"):
        for m in (64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384):
            for k in (1, 2, 4, 8, 16, 32, 64):
                if k <= m // 2:
                    yield dt, m, k
    for dt in ("int8", "int16", "int32", "int64", "float64"):
        for m in (256, 1024, 2048, 4096, 8192):
            for k in (1, 2, 4, 8, 16, 32):
                if k * 8 <= m:
                    yield dt, m, k


def main():
    rng = np.random.default_rng(7)
    for dt, m, k in cells():
        x = make(rng, dt, TOTAL // m, m)
        a = rtopk.topk(x, k, algo="auto", sorted=False)
        b = rtopk.topk(x, k, algo="bisect", sorted=False)
        same = np.array_equal(a.indices, b.indices) and a.values.tobytes() == b.values.tobytes()
        r = {"dtype": dt, "m": m, "k": k, "same": bool(same)}
        r["auto"] = timed(lambda: rtopk.topk(x, k, algo="auto", sorted=False))
        r["bisect"] = timed(lambda: rtopk.topk(x, k, algo="bisect", sorted=False))
        print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()
