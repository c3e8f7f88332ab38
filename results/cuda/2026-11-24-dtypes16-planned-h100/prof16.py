"""Run rtopk.topk a few times on one (dtype, N, M, k) for ncu to catch."""
import sys
import torch
import rtopk
dt, n, m, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
g = torch.Generator(device="cuda").manual_seed(1)
x = torch.randn(n, m, device="cuda", generator=g).to(getattr(torch, dt))
for _ in range(4):
    r = rtopk.topk(x, k)
torch.cuda.synchronize()
t = torch.topk(x, k)
assert torch.equal(r.values.sort(1).values, t.values.sort(1).values)
print("ok", dt, n, m, k)
