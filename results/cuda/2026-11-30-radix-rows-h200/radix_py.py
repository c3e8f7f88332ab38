"""The radix select through the Python package on CUDA tensors (rows of 2^20 and more, k of
4096 and more): rtopk.topk against torch.topk on the same tensors, f32, f16 and bf16, both
modes — values identical (sorted output), indices naming those values, distinct — and each
timed with CUDA events (median of 20 after 3 warm-ups, the same input: L2 holds at most a
third of the 16 MB row)."""
import json
import sys

import rtopk
import torch

out = []
torch.manual_seed(0)
for dtype in (torch.float32, torch.float16, torch.bfloat16):
    for n, m, k in [(1, 1 << 22, 8192), (1, 1 << 22, 32768), (2, 3_000_001, 4096), (1, 1 << 24, 16384)]:
        x = torch.randn(n, m, device="cuda", dtype=dtype)
        for largest in (True, False):
            v, i = rtopk.topk(x, k, largest=largest, sorted=True)
            tv, ti = torch.topk(x, k, largest=largest, sorted=True)
            assert torch.equal(v, tv), (dtype, n, m, k, largest)
            assert torch.equal(x.gather(1, i.long()), v), (dtype, n, m, k, largest)
            assert all(len(set(r.tolist())) == k for r in i), "distinct indices"

            def timed(f):
                for _ in range(3):
                    f()
                ts = []
                for _ in range(20):
                    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    a.record()
                    f()
                    b.record()
                    torch.cuda.synchronize()
                    ts.append(a.elapsed_time(b))
                return sorted(ts)[len(ts) // 2]

            r = timed(lambda: rtopk.topk(x, k, largest=largest, sorted=False))
            t = timed(lambda: torch.topk(x, k, largest=largest, sorted=False))
            row = {"dtype": str(dtype), "n": n, "m": m, "k": k, "largest": largest, "rtopk_ms": r, "torch_ms": t, "torch_over_rtopk": t / r}
            out.append(row)
            print(json.dumps(row), flush=True)
json.dump(out, open(sys.argv[1], "w"), indent=1)
