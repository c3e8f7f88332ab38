#!/usr/bin/env python3
"""One rtopk.topk call on an (N, M) standard-normal tensor of DTYPE on the GPU, for Nsight
Compute (`ncu -k regex:rows`): a warm-up call, then the profiled one.

    python3 prof_rows16.py N M K DTYPE
"""
import sys

import torch

import rtopk

n, m, k, name = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
x = torch.randn(n, m, device="cuda", generator=torch.Generator(device="cuda").manual_seed(1))
x = x.to(getattr(torch, name))
for _ in range(2):
    rtopk.topk(x, k, sorted=False)
torch.cuda.synchronize()
