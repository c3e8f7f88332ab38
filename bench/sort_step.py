#!/usr/bin/env python3
"""What sorted output costs: rtopk.topk with sorted=True and False on the same CUDA tensors (and
torch.topk sorted, for scale), GPU time per call — on few rows of large k (`--grid few-rows`,
the default) or the RTop-K paper's grid (`--grid rtopk`: N = 2^14…2^20, M = 256, 512, 768,
k = 16…128).

Method (bench/torch_op.py's): standard-normal float32 rows drawn on the device (seeded per
shape), rotated over ceil(4 x L2 / input bytes) buffers (at most 16) so that no call finds its
input in L2; per call, CUDA events with the GPU kept busy ahead of the start event
(spin_timing); median of --reps calls after 2 warm-up calls. Every case is checked first:
rtopk's sorted values equal torch.topk's.

    python3 bench/sort_step.py --out FILE.json [--reps 20] [--grid few-rows,rtopk]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics

import rtopk
import torch
from spin_timing import spin_timed_ms

L2_BYTES = 50 * 2**20
ROWS = [1, 8, 32, 128, 512, 2048, 8192]
WIDTHS_K = [(4096, 300), (32768, 512), (32768, 1024), (128256, 512), (128256, 1024)]
GRIDS = {
    "few-rows": [(n, m, k) for m, k in WIDTHS_K for n in ROWS],
    "rtopk": [
        (n, m, k)
        for n in (16384, 65536, 262144, 1048576)
        for m in (256, 512, 768)
        for k in (16, 32, 64, 96, 128)
    ],
}


def median_ms(fns: list, reps: int) -> float:
    for f in fns[:2]:
        f()
    return statistics.median(spin_timed_ms(fns[r % len(fns)]) for r in range(reps))


def case(n: int, m: int, k: int, reps: int) -> dict:
    count = max(1, min(16, math.ceil(4 * L2_BYTES / (n * m * 4))))
    gen = torch.Generator(device="cuda").manual_seed(n * 7919 + m + k)
    xs = [torch.randn(n, m, device="cuda", generator=gen) for _ in range(count)]
    got = rtopk.topk(xs[0], k, sorted=True)
    want = torch.topk(xs[0], k, sorted=True)
    row = {
        "n": n,
        "m": m,
        "k": k,
        "buffers": count,
        "check": torch.equal(got.values, want.values),
    }
    row["rtopk_sorted_ms"] = median_ms(
        [lambda x=x: rtopk.topk(x, k, sorted=True) for x in xs], reps
    )
    row["rtopk_unsorted_ms"] = median_ms(
        [lambda x=x: rtopk.topk(x, k, sorted=False) for x in xs], reps
    )
    row["torch_sorted_ms"] = median_ms(
        [lambda x=x: torch.topk(x, k, sorted=True) for x in xs], reps
    )
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument(
        "--grid", default="few-rows", help="few-rows, rtopk, or both (comma-separated)"
    )
    args = ap.parse_args()
    rows = []
    for grid in args.grid.split(","):
        for n, m, k in GRIDS[grid]:
            r = case(n, m, k, args.reps)
            rows.append(r)
            print(json.dumps(r), flush=True)
    record = {
        "device": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "rows": rows,
    }
    with open(args.out, "w") as f:
        json.dump(record, f, indent=1)


if __name__ == "__main__":
    main()
