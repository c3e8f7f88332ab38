#!/usr/bin/env python3
"""What sorted output costs: rtopk.topk with sorted=True and False on the same CUDA tensors (and
torch.topk sorted, for scale), GPU time per call — on few rows of large k (`--grid few-rows`,
the default), the RTop-K paper's grid (`--grid rtopk`: N = 2^14…2^20, M = 256, 512, 768,
k = 16…128; `rtopk-two`: its N = 2^16 and 2^20 only), sampler rows (`--grid sampler`:
N = 1…1024 rows of an LLM vocabulary, M = 32000 and 128256, k = 50 and 256) or k past 4096
(`--grid large-k`: vectors of 2^22 and 2^25, 8 × 2^19, 32 × 2^17, k = 4500…32768;
`large-k-many`: 256 to 2048 rows of 8192 to 2^16, k = 4100…16384), in float32,
float16 or bfloat16 (`--dtype`, comma-separated).

Method (bench/torch_op.py's): standard-normal float32 rows drawn on the device (seeded per
shape; 16-bit rows are those draws rounded, so bfloat16 rows hold many ties), rotated over
ceil(4 x L2 / input bytes) buffers (at most 16) so that no call finds its input in L2; per
call, CUDA events with the GPU kept busy ahead of the start event (spin_timing); median of
--reps calls after 2 warm-up calls. Every case is checked first: rtopk's sorted values equal
torch.topk's bit for bit, its indices are the unsorted call's (the same selection), each
index holds its value, and tied values come in ascending index order (docs/contract.md §1).

    python3 bench/sort_step.py --out FILE.json [--reps 20] [--grid few-rows,rtopk]
        [--dtype float32,bfloat16]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from typing import Any

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
    "rtopk-two": [
        (n, m, k) for n in (65536, 1048576) for m in (256, 512, 768) for k in (16, 32, 64, 96, 128)
    ],
    "sampler": [(n, m, k) for m in (32000, 128256) for k in (50, 256) for n in (1, 16, 128, 1024)],
    # k past 4096 on few rows and vectors: the block sort in the opt-in shared memory up to
    # 16384 positions, in place in L2 past it
    "large-k": [(1, 2**22, k) for k in (5000, 8192, 16384, 32768)]
    + [(1, 2**25, k) for k in (8192, 16384)]
    + [(8, 2**19, k) for k in (4500, 8192, 16384)]
    + [(32, 2**17, 16384)],
    # the same sorts on many rows, where a block of 64 or 128 KiB of shared memory holds an SM
    "large-k-many": [
        (256, 2**16, 8192),
        (256, 2**16, 16384),
        (1024, 2**15, 5000),
        (2048, 8192, 4100),
    ],
}
DTYPES = {
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
}


def median_ms(fns: list, reps: int) -> float:
    for f in fns[:2]:
        f()
    return statistics.median(spin_timed_ms(fns[r % len(fns)]) for r in range(reps))


def canonical(x: torch.Tensor, got: tuple, unsorted: tuple, want: Any) -> bool:
    """rtopk's sorted answer: torch.topk's values bit for bit, the unsorted call's indices (in
    index order there), each index holding its value, ties in ascending index order."""
    v, i = got
    bits = torch.int16 if v.element_size() == 2 else torch.int32
    same_values = torch.equal(v.view(bits), want.values.view(bits))
    same_selection = torch.equal(torch.sort(i, dim=1).values, unsorted[1])
    held = torch.equal(torch.gather(x, 1, i).view(bits), v.view(bits))
    tied = v[:, 1:] == v[:, :-1]
    ties_ordered = bool(((i[:, 1:] > i[:, :-1]) | ~tied).all())
    return same_values and same_selection and held and ties_ordered


def case(n: int, m: int, k: int, dtype: str, reps: int) -> dict:
    size = torch.tensor([], dtype=DTYPES[dtype]).element_size()
    count = max(1, min(16, math.ceil(4 * L2_BYTES / (n * m * size))))
    gen = torch.Generator(device="cuda").manual_seed(n * 7919 + m + k)
    xs = [torch.randn(n, m, device="cuda", generator=gen).to(DTYPES[dtype]) for _ in range(count)]
    got = rtopk.topk(xs[0], k, sorted=True)
    unsorted = rtopk.topk(xs[0], k, sorted=False)
    want = torch.topk(xs[0], k, sorted=True)
    row = {
        "n": n,
        "m": m,
        "k": k,
        "dtype": dtype,
        "buffers": count,
        "check": canonical(xs[0], tuple(got), tuple(unsorted), want),
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
        "--grid",
        default="few-rows",
        help="few-rows, rtopk, rtopk-two, sampler, large-k, large-k-many (comma-separated)",
    )
    ap.add_argument(
        "--dtype",
        default="float32",
        help="float32, float16, bfloat16 (comma-separated)",
    )
    args = ap.parse_args()
    rows = []
    for dtype in args.dtype.split(","):
        for grid in args.grid.split(","):
            for n, m, k in GRIDS[grid]:
                r = case(n, m, k, dtype, args.reps)
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
