#!/usr/bin/env python3
"""The sampled radix tier in 16-bit: rtopk.topk of one wheel (the package on PYTHONPATH) on
float16 and bfloat16 rows — standard-normal float32 draws on the device, rounded — each type's
buffers rotated past L2, CUDA events behind a spin (bench/torch_op.py's median_gpu_ms), median
of --reps after two warm-up calls; every case first checked equal to torch.topk's values. With
--torch, torch.topk on the same tensors too.

    PYTHONPATH=SITE python3 gate16s.py OUT.json [--reps 15] [--torch] [--shapes N:M:K,...]"""
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench"))
from torch_op import median_gpu_ms  # noqa: E402

import rtopk  # noqa: E402

# (n, m, k): at most 16 rows of 2^22 and more, k = 64-1024, where the radix select's sample
# runs (every shape but the first); the first is a row the sample does not reach (unchanged)
SHAPES = [(1, 1 << 22, 256), (1, 1 << 24, 64), (1, 1 << 24, 256), (1, 1 << 24, 1024),
          (1, 1 << 26, 64), (1, 1 << 26, 256), (1, 1 << 28, 64), (1, 1 << 28, 256),
          (1, 1 << 28, 1024), (2, 1 << 23, 128), (4, 1 << 24, 64), (4, 1 << 24, 256),
          (8, 1 << 22, 512), (16, 1 << 22, 64), (16, 1 << 22, 256), (16, 1 << 22, 1024),
          (16, 1 << 24, 256)]


def one(n: int, m: int, k: int, reps: int, l2: int, with_torch: bool) -> list:
    count = min(max(math.ceil(4 * l2 / (n * m * 2)), 1), 16)
    gen = torch.Generator(device="cuda").manual_seed(n * 1000003 + m + k)
    rows = []
    for dtype in (torch.float16, torch.bfloat16):
        xs = [torch.randn(n, m, device="cuda", generator=gen).to(dtype) for _ in range(count)]
        got = rtopk.topk(xs[0], k, sorted=False).values.float().sort(dim=-1).values
        want = torch.topk(xs[0], k, sorted=False).values.float().sort(dim=-1).values
        ok = bool(torch.equal(got, want))
        ms = median_gpu_ms([lambda x=x: rtopk.topk(x, k, sorted=False) for x in xs], reps)
        row = {"n": n, "m": m, "k": k, "dtype": str(dtype).split(".")[1],
               "check": "ok" if ok else "VALUES DIFFER", "rtopk_ms": ms}
        if with_torch:
            row["torch_ms"] = median_gpu_ms([lambda x=x: torch.topk(x, k, sorted=False) for x in xs], reps)
        rows.append(row)
        print(row, flush=True)
        del xs
        torch.cuda.empty_cache()
    return rows


def main() -> None:
    reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 15
    shapes = SHAPES
    if "--shapes" in sys.argv:
        text = sys.argv[sys.argv.index("--shapes") + 1]
        shapes = [tuple(int(v) for v in s.split(":")) for s in text.split(",")]
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    out = [row for n, m, k in shapes for row in one(n, m, k, reps, l2, "--torch" in sys.argv)]
    json.dump({"device": torch.cuda.get_device_name(0), "rows": out}, open(sys.argv[1], "w"), indent=1)


main()
