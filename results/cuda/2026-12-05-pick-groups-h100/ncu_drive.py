"""Drive rtopk.topk on one router shape for Nsight Compute: N x M of the given dtype, k, three
unsorted calls (ncu skips the first)."""

import sys

import rtopk
import torch

n, m, k, dt = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
torch.manual_seed(0)
x = torch.randn(n, m, device="cuda").to(getattr(torch, dt))
for _ in range(3):
    rtopk.topk(x, k, sorted=False)
torch.cuda.synchronize()
