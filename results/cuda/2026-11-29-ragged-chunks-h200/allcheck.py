"""Rows that select all they have (k = M, rows shorter than their k) on the GPU against the
CPU (rtopk.topk on the same rows on the host): values bit for bit and indices, with and without
iteration counts, over warp rows, block rows and split rows, f32 / f16 / bf16."""
import sys
import torch, rtopk

bad = 0
cases = 0
for dt in (torch.float32, torch.float16, torch.bfloat16):
    for n, m, k in ((300, 200, 200), (64, 3000, 3000), (8, 20000, 20000), (4, 131072, 2048), (2, 300000, 4096), (50, 5000, 700)):
        g = torch.Generator().manual_seed(n + m + k)
        x = torch.randn(n, m, generator=g).to(dt)
        x[0, 3] = float("inf"); x[-1, 5] = float("nan")
        lengths = torch.randint(0, m + 1, (n,), generator=g, dtype=torch.int32)
        lengths[0] = m
        for lens in (None, lengths):
            for its in (False, True):
                kw = dict(sorted=False)
                if lens is not None:
                    kw["lengths"] = lens
                if its:
                    kw["return_iterations"] = True
                try:
                    want = rtopk.topk(x, k, **kw)
                    got = rtopk.topk(x.cuda(), k, **{**kw, **({"lengths": lens.cuda()} if lens is not None else {})})
                except Exception as e:
                    print("error", dt, n, m, k, lens is not None, its, repr(e)[:200]); bad += 1; continue
                cases += 1
                gv, wv = got[0].cpu(), want[0]
                same = torch.equal(gv.view(torch.int16 if gv.element_size() == 2 else torch.int32), wv.view(torch.int16 if wv.element_size() == 2 else torch.int32)) and torch.equal(got[1].cpu(), want[1])
                if its:
                    same = same and torch.equal(got[2].cpu().to(torch.int64), want[2].to(torch.int64))
                if not same:
                    bad += 1
                    print("MISMATCH", dt, n, m, k, "lengths" if lens is not None else "full", "iterations" if its else "")
print(f"{cases} cases, {bad} mismatches or errors")
sys.exit(1 if bad else 0)
