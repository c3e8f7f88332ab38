"""One rtopk.topk call on float64 / int64 / float32 CUDA rows (2^18 x M, standard normal,
int64 = x 2^50), after a warm-up, for ncu; prints each call's mean iteration count."""
import sys
import torch
import rtopk

dtype, m, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
x = torch.randn(1 << 18, m, device="cuda", dtype=torch.float64)
if dtype == "int64":
    x = (x * 2.0**50).round().to(torch.int64)
elif dtype == "float32":
    x = x.float()
for _ in range(2):
    r = rtopk.topk(x, k, sorted=False, return_iterations=True)
torch.cuda.synchronize()
print(dtype, m, k, "mean iterations", r.iterations.double().mean().item(), flush=True)
r = rtopk.topk(x, k, sorted=False)
torch.cuda.synchronize()
