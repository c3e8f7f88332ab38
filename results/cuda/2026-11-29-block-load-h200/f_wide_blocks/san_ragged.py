"""Ragged block rows whose lengths cut 16-byte groups, for compute-sanitizer: each call's
answer checked against torch.topk of the row's valid prefix (values as multisets)."""
import torch
import rtopk

torch.manual_seed(0)
for n, m, k in [(3, 20_000, 600), (2, 70_000, 2048), (4, 16_400, 64)]:
    x = torch.randn(n, m, device="cuda")
    lengths = torch.tensor([m - 1 - 2 * r for r in range(n)], device="cuda", dtype=torch.int32)
    lengths[-1] = 15_363 if m > 15_363 else m
    got = rtopk.topk(x, k, lengths=lengths, sorted=True)
    for r in range(n):
        L = int(lengths[r])
        want = torch.topk(x[r, :L], min(k, L)).values
        assert torch.equal(got.values[r, : min(k, L)], want), (n, m, k, r)
torch.cuda.synchronize()
print("ok")
