"""Drive rtopk.topk on pick rows for compute-sanitizer: rows of a tensor that starts `offset`
elements into its storage (every row unaligned where offset is odd), each width of the pick
units and a width that cuts every other row, f16/bf16/f32, k = 1, 2, 6, 8; each answer checked
against the CPU bisection."""

import rtopk
import torch

bad = 0
for dt in (torch.float16, torch.bfloat16, torch.float32):
    ints = torch.int16 if dt.itemsize == 2 else torch.int32
    for n, m in ((257, 8), (129, 16), (65, 32), (33, 64), (17, 128), (9, 512), (31, 61)):
        for offset in (0, 1, 3):
            x = torch.randn(n * m + offset).to(dt).cuda()[offset:].view(n, m)
            for k in (1, 2, 6, 8):
                got = rtopk.topk(x, k, sorted=False)
                want = rtopk.topk(x.cpu(), k, sorted=False, algo="bisect")
                ok = torch.equal(got.indices.cpu(), want.indices) and torch.equal(
                    got.values.cpu().view(ints), want.values.view(ints)
                )
                bad += 0 if ok else 1
torch.cuda.synchronize()
print("mismatches", bad)
