#!/usr/bin/env python3
"""The search's share of a 16-bit and an f32 call on the RTop-K grid's N = 2^20 rows: rtopk.topk
unsorted, exact, against max_iter = 0 (no count: load and select alone) and max_iter = 4, 8,
on the same tensors (bench/dtypes16.py's inputs: N(0, 1) f32 draws, 16-bit ones rounded), CUDA
events behind a spin, inputs rotated past L2, median of --reps calls.

    python3 share.py [--reps 20] [--n 1048576] > share.txt
"""
import argparse
import sys

import torch

sys.path.insert(0, "bench")
from dtypes16 import check, inputs  # noqa: E402
from torch_op import median_gpu_ms  # noqa: E402

import rtopk  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--n", type=int, default=1 << 20)
    ap.add_argument("--m", default="256,512,768")
    ap.add_argument("--k", default="16,64,128")
    a = ap.parse_args()
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    print("n m k dtype exact_ms it0_ms it4_ms it8_ms counted_ms search_share check")
    for m in [int(v) for v in a.m.split(",")]:
        xs = inputs(a.n, m, l2)
        for k in [int(v) for v in a.k.split(",")]:
            for name, bufs in xs.items():
                t = {}
                for label, kw in [("exact", {}), ("it0", dict(max_iter=0)), ("it4", dict(max_iter=4)),
                                  ("it8", dict(max_iter=8)), ("counted", dict(return_iterations=True))]:
                    calls = [lambda x=x, kw=kw: rtopk.topk(x, k, sorted=False, **kw) for x in bufs]
                    t[label] = median_gpu_ms(calls, a.reps)
                share = 1 - t["it0"] / t["exact"]
                ok = check(rtopk, bufs[0], k)
                print(a.n, m, k, name, *(f"{t[l]:.4f}" for l in ["exact", "it0", "it4", "it8", "counted"]),
                      f"{share:.3f}", ok, flush=True)


if __name__ == "__main__":
    main()
