#!/usr/bin/env python3
"""Block rows of their own length that do not stage their loads (f32 launches of more than
2048 blocks of fewer than 512 threads, integer rows): the GPU time of rows whose lengths are
drawn uniform on [M/2, M] (any residue modulo the 16-byte group) beside the same lengths
rounded down to whole groups, and the plain call, on one build; torch.topk on the full rows
timed beside. bench/decode.py's timing (CUDA events behind a spin, inputs rotated past twice
the L2, the median of --reps calls); every ragged answer checked bit for bit against the
package's CPU path. One JSON line a shape.

    PYTHONPATH=/tmp/site_NAME:bench python3 block_loads.py --label NAME
"""

from __future__ import annotations

import argparse
import json
import statistics

import rtopk
import torch
from decode import Rotation, l2_bytes, same, time_rotated

SHAPES = (
    # (n, m, k, dtype): block rows of 256 and 64 threads on 4096 and 8192 blocks
    (4096, 8192, 512, "float32"),
    (8192, 2048, 64, "float32"),
    (4096, 8192, 512, "int32"),
    (4096, 8192, 512, "bfloat16"),
)


def rows(n: int, m: int, dtype: str, gen: torch.Generator) -> torch.Tensor:
    x = torch.randn(n, m, device="cuda", generator=gen)
    if dtype == "int32":
        return (x * 6.7e7).round().to(torch.int32)
    return x.to(getattr(torch, dtype))


def run(n: int, m: int, k: int, dtype: str, reps: int, l2: int) -> dict:
    gen = torch.Generator(device="cuda").manual_seed(n + m + k)
    x = rows(n, m, dtype, gen)
    odd = torch.randint(m // 2, m + 1, (n,), device="cuda", generator=gen, dtype=torch.int32)
    group = 16 // x.element_size()
    whole = odd // group * group
    calls = {
        "plain": lambda x: rtopk.topk(x, k, sorted=False),
        "own": lambda x: rtopk.topk(x, k, sorted=False, lengths=odd),
        "whole_groups": lambda x: rtopk.topk(x, k, sorted=False, lengths=whole),
    }
    if x.dtype.is_floating_point:
        calls["torch"] = lambda x: torch.topk(x, k, sorted=False)
    for fn in calls.values():
        for _ in range(3):
            fn(x)
    torch.cuda.synchronize()
    rot = Rotation(x, l2)
    us = {name: statistics.median(time_rotated(fn, rot, reps)) for name, fn in calls.items()}
    exact = {}
    for name, lengths in (("own", odd), ("whole_groups", whole)):
        got = calls[name](x)
        want = rtopk.topk(x.cpu(), k, sorted=False, lengths=lengths.cpu())
        exact[name] = same(got.values.cpu(), want.values) and same(got.indices.cpu(), want.indices)
    return {
        "n": n,
        "m": m,
        "k": k,
        "dtype": dtype,
        **{f"{c}_us": v for c, v in us.items()},
        "own_over_whole_groups": us["own"] / us["whole_groups"],
        "exact": exact,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--label", required=True)
    ap.add_argument("--reps", type=int, default=15)
    args = ap.parse_args()
    l2, bad = l2_bytes(), 0
    for n, m, k, dtype in SHAPES:
        r = {"label": args.label, **run(n, m, k, dtype, args.reps, l2)}
        bad += not all(r["exact"].values())
        print(json.dumps(r), flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
