#!/usr/bin/env python3
"""One rtopk.topk(x, k, sorted=False, return_threshold=True) per shape given (NxM:K), after a
warm-up call, for Nsight Compute to time its kernels. Usage: one_thr.py NxM:K ..."""

import sys

import rtopk
import torch

for text in sys.argv[1:]:
    dims, k = text.split(":")
    n, m = (int(v) for v in dims.split("x"))
    x = torch.randn(n, m, device="cuda")
    rtopk.topk(x, int(k), sorted=False, return_threshold=True)
    torch.cuda.synchronize()
    rtopk.topk(x, int(k), sorted=False, return_threshold=True)
    torch.cuda.synchronize()
