#!/usr/bin/env python3
"""bf16 rows of a block or a cluster (rows too wide for one warp) timed with the wheel on
PYTHONPATH: rtopk.topk unsorted and exact, no counts asked, on bench/dtypes16.py's inputs
(N(0, 1) f32 draws, rounded), CUDA events behind a spin, inputs rotated past L2, median of
--reps calls; f16 beside them as a control (its search does not change between the wheels).

    python3 block16.py [--reps 30] > block16.txt
"""
import argparse
import sys

import torch

sys.path.insert(0, "bench")
from dtypes16 import check, inputs  # noqa: E402
from torch_op import median_gpu_ms  # noqa: E402

import rtopk  # noqa: E402

# (N, M, k): block rows that do not narrow (M past one warp's bound with k > M/8, or
# 3073..8192 with k >= 512, or wider), and decode-sized rows of a cluster or a block.
SHAPES = [
    (16384, 2048, 512), (16384, 3072, 1024), (8192, 4096, 512), (8192, 8192, 1024),
    (4096, 16384, 64), (4096, 16384, 512), (2048, 32768, 2048), (256, 65536, 2048),
    (8, 131072, 2048), (1, 32768, 2048), (1, 100000, 2048), (64, 32768, 512),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=30)
    a = ap.parse_args()
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    print("n m k dtype exact_ms check")
    for n, m, k in SHAPES:
        xs = inputs(n, m, l2)
        for name in ("bfloat16", "float16"):
            bufs = xs[name]
            calls = [lambda x=x: rtopk.topk(x, k, sorted=False) for x in bufs]
            ms = median_gpu_ms(calls, a.reps)
            print(f"{n} {m} {k} {name} {ms:.5f} {check(rtopk, bufs[0], k)}", flush=True)
        del xs
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
