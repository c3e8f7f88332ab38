"""rtopk.topk GPU time on 16-bit and f32 block rows (one block per row: M past 3072), for an
A/B of two wheels (PYTHONPATH): CUDA events, median of 30 calls over rotated inputs."""
import json, sys
sys.path.insert(0, "bench")
import torch, rtopk
from torch_op import median_gpu_ms
res = {}
for n, m in ((4096, 8192), (1024, 32768), (16384, 16384)):
    for dt in (torch.bfloat16, torch.float16, torch.float32):
        base = torch.randn(n, m, device="cuda", generator=torch.Generator(device="cuda").manual_seed(n + m))
        copies = max(1, min(16, (4 * 60 << 20) // (n * m * base.element_size()) + 1))
        xs = [base.to(dt) if i == 0 else (base + i * 1e-3).to(dt) for i in range(copies)]
        for k in (64, 512):
            calls = [lambda x=x: rtopk.topk(x, k, sorted=False) for x in xs]
            res[f"{n}x{m} k={k} {str(dt)[6:]}"] = median_gpu_ms(calls, 30)
        del xs, base
        torch.cuda.empty_cache()
print(json.dumps(res))
