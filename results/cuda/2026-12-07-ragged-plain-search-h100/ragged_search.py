#!/usr/bin/env python3
"""Rows of their own length on the plain units' searches (docs/performance.md, "Rows of their
own length on the plain searches"): per shape and type, the GPU time of a plain call, of the
same rows given lengths all M (the ragged twin on full rows) and of lengths uniform on
[0, M/2] (mean M/4), and every answer checked — the full-length call's values and indices
bit for bit the plain call's, the ragged call's bit for bit the package's CPU path on the same
rows. Timing: bench/decode.py's (CUDA events behind a spin, inputs rotated past twice the L2,
the median of --reps calls). One JSON line a shape and type on stdout.

    PYTHONPATH=/tmp/site_NAME:bench python3 ragged_search.py --label NAME --reps 15
"""

from __future__ import annotations

import argparse
import json
import statistics

import rtopk
import torch
from decode import Rotation, l2_bytes, same, time_rotated

SHAPES = (
    # cluster rows (f32: a guessed bracket where k * 80 >= M; 16-bit: histograms)
    (1, 32768, 2048),
    (8, 32768, 2048),
    (1, 100000, 2048),
    (8, 131072, 2048),
    (16, 32000, 64),
    (4, 49152, 1024),
    # block rows (f32: value bins; 16-bit: histograms)
    (64, 16384, 512),
    (128, 8192, 1024),
    (96, 16384, 2048),
    # rows that plain calls run on fewer, wider cluster blocks and rows of their own length on
    # a split (ClusterRows::OwnLength; h25 gives them the fewer blocks too)
    (32, 100000, 2048),
    (20, 100000, 2048),
    (24, 100000, 512),
    (64, 65536, 1024),
    (48, 49152, 2048),
    (32, 81920, 2048),
)


def run(n: int, m: int, k: int, dtype: torch.dtype, reps: int, l2: int) -> dict:
    gen = torch.Generator(device="cuda").manual_seed(n * 31 + m + k)
    x = torch.randn(n, m, device="cuda", generator=gen, dtype=dtype)
    full = torch.full((n,), m, device="cuda", dtype=torch.int32)
    quarter = torch.randint(0, m // 2 + 1, (n,), device="cuda", generator=gen, dtype=torch.int32)
    calls = {
        "plain": lambda x: rtopk.topk(x, k, sorted=False),
        "full": lambda x: rtopk.topk(x, k, sorted=False, lengths=full),
        "quarter": lambda x: rtopk.topk(x, k, sorted=False, lengths=quarter),
        "torch": lambda x: torch.topk(x, k, sorted=False),
    }
    for fn in calls.values():
        for _ in range(3):
            fn(x)
    torch.cuda.synchronize()
    rot = Rotation(x, l2)
    us = {name: statistics.median(time_rotated(fn, rot, reps)) for name, fn in calls.items()}
    plain, whole, ragged = (calls[c](x) for c in ("plain", "full", "quarter"))
    cpu = rtopk.topk(x.cpu(), k, sorted=False, lengths=quarter.cpu())
    checks = {
        "full_is_plain": same(whole.values, plain.values) and same(whole.indices, plain.indices),
        "quarter_is_cpu": same(ragged.values.cpu(), cpu.values)
        and same(ragged.indices.cpu(), cpu.indices),
    }
    return {
        "n": n,
        "m": m,
        "k": k,
        "dtype": str(dtype).removeprefix("torch."),
        "mean_length": float(quarter.float().mean()),
        **{f"{c}_us": v for c, v in us.items()},
        "full_over_plain": us["full"] / us["plain"],
        "quarter_over_plain": us["quarter"] / us["plain"],
        **checks,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--label", required=True)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--dtype", nargs="+", default=["float32", "bfloat16"])
    ap.add_argument("--reverse", action="store_true", help="the shapes in reverse order")
    args = ap.parse_args()
    l2, bad = l2_bytes(), 0
    for d in args.dtype:
        for n, m, k in reversed(SHAPES) if args.reverse else SHAPES:
            r = {"label": args.label, **run(n, m, k, getattr(torch, d), args.reps, l2)}
            bad += not (r["full_is_plain"] and r["quarter_is_cpu"])
            print(json.dumps(r), flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
