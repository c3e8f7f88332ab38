#!/usr/bin/env python3
"""The rows that fewer, wider cluster blocks take (rtopk-plan's `fewer_blocks`): each shape's
answer on the GPU against the package's CPU path (topk-ref's rows), bit for bit, in f32 and
bf16, plain, sorted, with rows of their own length and with threshold hints; then the GPU time
of plain calls (CUDA events behind a spin, inputs rotated past L2, median of --reps) and
torch.topk's on the same tensors.

    python3 clusters_check.py OUT.jsonl [REPS] [DTYPES] [--no-check] [--shapes N:M,... --ks K,...]
"""

from __future__ import annotations

import json
import statistics
import sys

import rtopk
import torch

sys.path.insert(0, "bench")
from spin_timing import spin_timed_ms  # noqa: E402

SHAPES = [(n, m) for n in (20, 32, 48, 64) for m in (24576, 32768, 49152, 65536, 100000, 131072, 163840)]
KS = (50, 512, 2048)
DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16}


def same(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.dtype == torch.bfloat16:
        a, b = a.view(torch.int16), b.view(torch.int16)
    elif a.dtype == torch.float32:
        a, b = a.view(torch.int32), b.view(torch.int32)
    return bool(torch.equal(a.cpu(), b.cpu()))


def check(x: torch.Tensor, k: int) -> list[str]:
    """Every way a decode loop or a user calls it, against the CPU path."""
    bad = []
    xc = x.cpu()
    n, m = x.shape
    g = torch.Generator().manual_seed(n * m + k)
    lengths = torch.randint(0, m + 1, (n,), generator=g)
    for name, kw in (("plain", {}), ("sorted", {"sorted": True}), ("lengths", {"lengths": lengths})):
        cpu_kw = dict(kw)
        gpu_kw = {key: (v.cuda() if isinstance(v, torch.Tensor) else v) for key, v in kw.items()}
        c = rtopk.topk(xc, k, **cpu_kw)
        r = rtopk.topk(x, k, **gpu_kw)
        if not (same(c.values, r.values) and torch.equal(c.indices.cpu(), r.indices.cpu())):
            bad.append(name)
    c = rtopk.topk(xc, k, return_threshold=True)
    hint = c.threshold + 0.01 * torch.randn(n, generator=g)
    r = rtopk.topk(x, k, hint=hint.cuda(), return_threshold=True)
    if not (same(c.values, r.values) and torch.equal(c.indices.cpu(), r.indices.cpu())
            and torch.equal(c.threshold.view(torch.int32), r.threshold.cpu().view(torch.int32))):
        bad.append("hinted")
    return bad


def timed(fn, reps: int) -> float:  # type: ignore[no-untyped-def]
    for _ in range(3):
        fn(0)
    return statistics.median(spin_timed_ms(lambda: fn(i)) for i in range(reps))


def main() -> int:
    out = open(sys.argv[1], "w")
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    dtypes = sys.argv[3].split(",") if len(sys.argv) > 3 else list(DTYPES)
    checks = "--no-check" not in sys.argv
    shapes, ks = SHAPES, KS
    if "--shapes" in sys.argv:
        spec = sys.argv[sys.argv.index("--shapes") + 1]
        shapes = [(int(a), int(b)) for a, b in (p.split(":") for p in spec.split(","))]
    if "--ks" in sys.argv:
        ks = tuple(int(k) for k in sys.argv[sys.argv.index("--ks") + 1].split(","))
    failures = 0
    for dname in dtypes:
        dtype = DTYPES[dname]
        for n, m in shapes:
            nbytes = n * m * (4 if dname == "f32" else 2)
            copies = max(2, -(-2 * 50 * 2**20 // nbytes))
            xs = [torch.randn(n, m, device="cuda").to(dtype) for _ in range(copies)]
            for k in ks:
                bad = check(xs[0], k) if checks else []
                failures += len(bad)
                ours = timed(lambda i: rtopk.topk(xs[i % copies], k), reps)
                theirs = timed(lambda i: torch.topk(xs[i % copies], k), reps)
                row = {"dtype": dname, "n": n, "m": m, "k": k, "rtopk_ms": ours,
                       "torch_ms": theirs, "bad": bad}
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(row, flush=True)
    print(f"failures: {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
