import torch, rtopk
for m, k in [(4096, 300), (32768, 512), (32768, 1024), (262144, 2048), (262144, 4096)]:
    x = torch.randn(1, m, device="cuda")
    for _ in range(3):
        v, i = rtopk.topk(x, k, sorted=True)
    w = torch.topk(x, k, sorted=True)
    assert torch.equal(v, w.values), (m, k)
torch.cuda.synchronize()
print("ok")
