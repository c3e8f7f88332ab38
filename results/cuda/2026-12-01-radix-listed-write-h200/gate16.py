#!/usr/bin/env python3
"""The radix gate on few rows at k = 2048 in every float type: rtopk.topk on CUDA tensors of
one wheel (the package on PYTHONPATH), standard-normal float32 draws on the device and the
same rounded to float16 and bfloat16, each type's buffers rotated past L2 (bench/torch_op.py's
method: CUDA events behind a spin, median of --reps after two warm-up calls), torch.topk on the
same tensors in the same run; every case checked first (values, sorted per row, equal to
torch.topk's).

    PYTHONPATH=SITE python3 gate16.py OUT.json [--reps 30]"""
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench"))
from torch_op import median_gpu_ms  # noqa: E402

import rtopk  # noqa: E402

SHAPES = [(1, 1 << 20, 2048), (1, 1 << 21, 2048), (1, 1 << 22, 2048), (2, 1 << 21, 2048),
          (8, 1 << 21, 2048), (1, 1 << 25, 2048), (1, 1 << 22, 8192), (32, 1 << 21, 2048)]
reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 30
l2 = torch.cuda.get_device_properties(0).L2_cache_size
out = []
for n, m, k in SHAPES:
    count = min(max(math.ceil(4 * l2 / (n * m * 4)), 1), 16)
    gen = torch.Generator(device="cuda").manual_seed(n * 1000003 + m + k)
    base = [torch.randn(n, m, device="cuda", generator=gen) for _ in range(count)]
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        xs = [b.to(dtype) for b in base]
        got = rtopk.topk(xs[0], k, sorted=False).values.float().sort(dim=-1).values
        want = torch.topk(xs[0], k, sorted=False).values.float().sort(dim=-1).values
        ok = bool(torch.equal(got, want))
        ours = median_gpu_ms([lambda x=x: rtopk.topk(x, k, sorted=False) for x in xs], reps)
        theirs = median_gpu_ms([lambda x=x: torch.topk(x, k, sorted=False) for x in xs], reps)
        row = {"n": n, "m": m, "k": k, "dtype": str(dtype).split(".")[1], "check": "ok" if ok else "VALUES DIFFER",
               "rtopk_ms": ours, "torch_ms": theirs}
        print(row, flush=True)
        out.append(row)
    del base, xs
    torch.cuda.empty_cache()
json.dump({"device": torch.cuda.get_device_name(0), "rtopk": getattr(rtopk, "__version__", "?"), "rows": out},
          open(sys.argv[1], "w"), indent=1)
