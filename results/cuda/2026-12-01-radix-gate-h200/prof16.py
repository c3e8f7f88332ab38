#!/usr/bin/env python3
"""One radix select per float type for Nsight Compute: rtopk.topk (the package on PYTHONPATH)
on one standard-normal row of M rounded to each type, k given, after one warm-up call; run
under `ncu -k regex:radix` to read the digit passes' times and counters.

    PYTHONPATH=SITE ncu ... python3 prof16.py M K"""
import sys

import torch

import rtopk

m, k = int(sys.argv[1]), int(sys.argv[2])
base = torch.randn(1, m, device="cuda", generator=torch.Generator(device="cuda").manual_seed(m + k))
for dtype in (torch.float32, torch.float16, torch.bfloat16):
    x = base.to(dtype)
    rtopk.topk(x, k, sorted=False)
    torch.cuda.synchronize()
    rtopk.topk(x, k, sorted=False)
    torch.cuda.synchronize()
