"""Where a decode step's GPU time goes: one row of 32768 at k = 2048 (bench/decode.py's shape)
called plain, with its threshold output, and with the previous threshold as hint, three times
each; run under `ncu --metrics gpu__time_duration.sum` to time every kernel of each call."""
import torch

import rtopk

torch.manual_seed(0)
x = torch.randn(1, 32768, device="cuda")
k = 2048
prev = rtopk.topk(x, k, sorted=False, return_threshold=True).threshold
y = x.clone()
mask = torch.rand_like(y) < 0.02
y[mask] = torch.randn(int(mask.sum()), device="cuda")
for _ in range(3):
    torch.cuda.nvtx.range_push("plain")
    rtopk.topk(y, k, sorted=False)
    torch.cuda.nvtx.range_pop()
    torch.cuda.nvtx.range_push("threshold")
    rtopk.topk(y, k, sorted=False, return_threshold=True)
    torch.cuda.nvtx.range_pop()
    torch.cuda.nvtx.range_push("hinted")
    rtopk.topk(y, k, sorted=False, return_threshold=True, hint=prev)
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
