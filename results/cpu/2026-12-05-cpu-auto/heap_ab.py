#!/usr/bin/env python3
"""`heap` alone (algo="heap", unsorted) on eight cells of 2^22 standard-normal f32 values, the
best of 7 calls after one warm-up: run once per wheel (PYTHONPATH) to compare two builds.

    PYTHONPATH=SITE python3 heap_ab.py > heap_SITE.txt
"""
import numpy as np

import rtopk
from grid import best_ms


def main():
    rng = np.random.default_rng(0)
    print("N M k heap_ms")
    for m, k in [(1 << 22, 8), (1 << 22, 2048), (1 << 18, 64), (1 << 18, 2048), (16384, 8), (16384, 512),
                 (1024, 8), (256, 32)]:
        n = (1 << 22) // m
        x = rng.standard_normal((n, m), dtype=np.float32)
        print(n, m, k, f"{best_ms(lambda: rtopk.topk(x, k, algo='heap', sorted=False), reps=7):.3f}", flush=True)


if __name__ == "__main__":
    main()
