"""Sorted calls on few rows (the rank sort's shapes and its edges), for Nsight Compute: each
case's `rtopk.topk(x, k, sorted=True)` checked against torch.topk (values and indices, f32 rows
of distinct values; bf16 rows: values), then `--calls` calls inside cudaProfilerStart/Stop.

    python3 p.py [--calls 5] [--cases ab|c] [--dtype float32]
"""

import argparse
import sys

import rtopk
import torch

CASES = [
    (1, 262144, 300), (1, 262144, 512), (1, 262144, 1024), (1, 262144, 2048), (1, 262144, 4096),
    (8, 32768, 1024), (8, 32768, 2048), (1, 128256, 1024), (4, 100000, 4096),
]
# `--cases c` (call c): the committed limits' edges, 8192 results at most
CASES_C = CASES + [(2, 32768, 2048), (4, 32768, 2048), (16, 32768, 512), (8, 4096, 300)]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=5)
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--cases", default="ab", help="ab (calls a and b) or c")
    args = ap.parse_args()
    dtype = getattr(torch, args.dtype)
    bad = 0
    for n, m, k in CASES if args.cases == "ab" else CASES_C:
        g = torch.Generator(device="cuda").manual_seed(n * 7919 + k)
        x = torch.randn(n, m, device="cuda", generator=g).to(dtype)
        got = rtopk.topk(x, k, sorted=True)
        want = torch.topk(x, k, sorted=True)
        ok = torch.equal(got.values, want.values)
        if dtype == torch.float32:
            ok = ok and torch.equal(got.indices, want.indices)
        bad += not ok
        print(f"{n}x{m} k={k} {args.dtype}: {'ok' if ok else 'DIFFERENT'}", flush=True)
        torch.cuda.synchronize()
        torch.cuda.profiler.start()
        for _ in range(args.calls):
            rtopk.topk(x, k, sorted=True)
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
    print("different:", bad)
    return 1 if bad else 0


sys.exit(main())
