"""Ragged radix selects through the Python package on CUDA tensors (call e): device lengths
(int32 and int64) and a device k per row, eager and replayed from a CUDA graph, against the
package's CPU answer for the same request (values bit for bit, indices, thresholds)."""
import numpy as np
import rtopk
import torch

fails = 0
for n, m, width, seed in ((1, 1 << 20, 2048, 1), (3, (1 << 20) + 3, 600, 2), (9, 1 << 20, 2048, 3)):
    g = np.random.default_rng(seed)
    x = g.standard_normal((n, m)).astype(np.float32)
    x[:, ::97] = np.nan
    lengths = np.array([[m // 4 + 7, 0, m, 1, m // 2 + 3][r % 5] for r in range(n)])
    ks = np.array([[width, width, width // 2 + 1, 2, 0][r % 5] if r else width for r in range(n)])
    for dtype in (torch.int32, torch.int64):
        xc = torch.from_numpy(x).cuda()
        lc = torch.from_numpy(lengths).to("cuda", dtype)
        kc = torch.from_numpy(ks).to("cuda", dtype)
        cpu = rtopk.topk(torch.from_numpy(x), torch.from_numpy(ks), lengths=torch.from_numpy(lengths),
                         return_threshold=True)

        def call():
            return rtopk.topk(xc, kc, lengths=lc, width=width, return_threshold=True)

        eager = call()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(2):
                call()
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = call()
        graph.replay()
        torch.cuda.synchronize()
        for what, got in (("eager", eager), ("graph", out)):
            same = (got[0].cpu().view(torch.int32).equal(cpu[0].view(torch.int32))
                    and got[1].cpu().equal(cpu[1])
                    and got[2].cpu().view(torch.int32).equal(cpu[2].view(torch.int32)))
            fails += not same
            print(f"{n} x {m} width {width} {dtype} {what}: {'EQUAL' if same else 'DIFFER'}")
print("failures:", fails)
raise SystemExit(1 if fails else 0)
