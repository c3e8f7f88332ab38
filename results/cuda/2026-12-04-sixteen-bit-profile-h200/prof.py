#!/usr/bin/env python3
"""One rtopk.topk call on a CUDA tensor, profiled alone: two warm-up calls, then the call
between cudaProfilerStart and cudaProfilerStop (run under `ncu --profile-from-start off`).
Inputs as bench/dtypes16.py's: N(0, 1) f32 draws on the device, 16-bit ones rounded.

    python3 prof.py DTYPE N M K [exact|it0|counted]
"""
import sys

import torch

import rtopk


def main() -> None:
    dtype, n, m, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    mode = sys.argv[5] if len(sys.argv) > 5 else "exact"
    kw = {"it0": dict(max_iter=0), "counted": dict(return_iterations=True)}.get(mode, {})
    gen = torch.Generator(device="cuda").manual_seed(n * 1_000_003 + m)
    x = torch.randn(n, m, device="cuda", generator=gen).to(getattr(torch, dtype))
    for _ in range(2):
        rtopk.topk(x, k, sorted=False, **kw)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    rtopk.topk(x, k, sorted=False, **kw)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()


if __name__ == "__main__":
    main()
