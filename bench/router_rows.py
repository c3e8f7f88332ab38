#!/usr/bin/env python3
"""rtopk.topk on the short rows of small k that MoE routers and samplers ask (M = 8…512,
k = 1…8: the pick rows of docs/kernel.md) against torch.topk on the same CUDA tensors, and
against the bisection (the same call with ``return_iterations=True``, which takes the
bisection's route and writes one count per row), in float32, float16 and bfloat16: GPU time per
call, and the input's bytes per second.

Method (bench/torch_op.py's): standard-normal float32 inputs drawn on the device
(torch.randn, seeded per shape), the 16-bit inputs the same draws rounded to nearest; each
type's buffers rotated over ceil(4 x L2 / input bytes) copies (at most 64) so that no call finds
its input in L2; per call, CUDA events with the GPU kept busy ahead of the start event
(torch.cuda._sleep); median of --reps calls after 2 warm-up calls; largest, exact. Every case is
checked first: rtopk's sorted values equal torch.topk's, its indices hold them, and its
unsorted values, sorted, equal torch's (torch orders ties its own way: indices are not
compared).

    python3 bench/router_rows.py --out DIR [--reps 30]

Writes DIR/router_rows.json and DIR/router_rows.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Any, Dict, List

import torch

from torch_op import device_env, geomean, median_gpu_ms

# (N, M, k): 32 MB of bf16 at M = 64 and 128 (the issue's router cells), DeepSeek-V3's and
# Mixtral's routers, sampler-like rows, the widest pick rows.
SHAPES = [
    (262144, 64, 6),
    (65536, 128, 2),
    (131072, 256, 8),
    (1 << 20, 8, 2),
    (1 << 20, 16, 1),
    (1 << 16, 160, 6),
    (32768, 512, 8),
    (16384, 512, 1),
    (64, 256, 8),
]
DTYPES = {
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
}
MAX_BUFFERS = 64


def check(rtopk: Any, x: torch.Tensor, k: int) -> str:
    got = rtopk.topk(x, k, sorted=True)
    want = torch.topk(x, k, sorted=True)
    unsorted = rtopk.topk(x, k, sorted=False)
    ok = torch.equal(got.values, want.values)
    ok = ok and torch.equal(x.gather(-1, got.indices), got.values)
    ok = ok and torch.equal(
        unsorted.values.sort(dim=-1).values, want.values.sort(dim=-1).values
    )
    torch.cuda.synchronize()
    return "ok" if ok else "DIFFERS"


def one(
    rtopk: Any, n: int, m: int, k: int, name: str, l2: int, reps: int
) -> Dict[str, Any]:
    gen = torch.Generator(device="cuda").manual_seed(n * 1_000_003 + m)
    size = torch.empty((), dtype=DTYPES[name]).element_size()
    count = min(max(math.ceil(4 * l2 / (n * m * size)), 1), MAX_BUFFERS)
    xs = [
        torch.randn(n, m, device="cuda", generator=gen).to(DTYPES[name])
        for _ in range(count)
    ]
    row: Dict[str, Any] = dict(n=n, m=m, k=k, dtype=name, buffers=count)
    row["check"] = check(rtopk, xs[0], k)
    for sorted_ in (False, True):
        tag = "sorted" if sorted_ else "unsorted"
        ours = [lambda x=x, s=sorted_: rtopk.topk(x, k, sorted=s) for x in xs]
        theirs = [lambda x=x, s=sorted_: torch.topk(x, k, sorted=s) for x in xs]
        # the same call with counts asked: the bisection's route (docs/kernel.md, "Pick rows"),
        # which also writes one count per row
        counted = [
            lambda x=x, s=sorted_: rtopk.topk(x, k, sorted=s, return_iterations=True)
            for x in xs
        ]
        row[f"rtopk_{tag}_ms"] = median_gpu_ms(ours, reps)
        row[f"torch_{tag}_ms"] = median_gpu_ms(theirs, reps)
        row[f"bisect_{tag}_ms"] = median_gpu_ms(counted, reps)
        row[f"torch_over_rtopk_{tag}"] = row[f"torch_{tag}_ms"] / row[f"rtopk_{tag}_ms"]
        row[f"bisect_over_rtopk_{tag}"] = (
            row[f"bisect_{tag}_ms"] / row[f"rtopk_{tag}_ms"]
        )
    row["rtopk_unsorted_gbps"] = n * m * size / row["rtopk_unsorted_ms"] / 1e6
    row["bisect_unsorted_gbps"] = n * m * size / row["bisect_unsorted_ms"] / 1e6
    return row


def report(rows: List[Dict[str, Any]], env: Dict[str, Any]) -> str:
    lines = [
        f"# Router rows: rtopk.topk vs torch.topk — {env['device']}, {env['date']}",
        "",
        f"Command: `{env['command']}`; torch {env['torch']} (CUDA {env['cuda']}), "
        f"rtopk {env['rtopk']}. GPU ms, median; GB/s of input read by rtopk (unsorted).",
        "",
        "| N | M | k | dtype | rtopk | torch | torch/rtopk | bisection/rtopk | rtopk sorted "
        "| torch sorted | torch/rtopk sorted | bisection/rtopk sorted | rtopk GB/s "
        "| bisection GB/s | check |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "rtopk_unsorted_ms" not in r:
            lines.append(
                f"| {r['n']} | {r['m']} | {r['k']} | {r['dtype']} | {r.get('error')} |"
            )
            continue
        lines.append(
            f"| {r['n']} | {r['m']} | {r['k']} | {r['dtype']} | {r['rtopk_unsorted_ms']:.4f} "
            f"| {r['torch_unsorted_ms']:.4f} | {r['torch_over_rtopk_unsorted']:.2f}x "
            f"| {r['bisect_over_rtopk_unsorted']:.2f}x "
            f"| {r['rtopk_sorted_ms']:.4f} | {r['torch_sorted_ms']:.4f} "
            f"| {r['torch_over_rtopk_sorted']:.2f}x | {r['bisect_over_rtopk_sorted']:.2f}x "
            f"| {r['rtopk_unsorted_gbps']:.0f} | {r['bisect_unsorted_gbps']:.0f} | {r['check']} |"
        )
    for name in DTYPES:
        done = [r for r in rows if r.get("dtype") == name and "check" in r]
        for what in ("torch", "bisect"):
            for tag in ("unsorted", "sorted"):
                g = geomean([r[f"{what}_over_rtopk_{tag}"] for r in done])
                if g:
                    lines.append(
                        f"\n{name}: {what}/rtopk {tag}, geometric mean {g:.2f}x over "
                        f"{len(done)} shapes"
                    )
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=30)
    args = ap.parse_args()
    import rtopk

    env = device_env(rtopk, method=__doc__.split("\n\n")[1].replace("\n", " "))
    rows: List[Dict[str, Any]] = []
    for n, m, k in SHAPES:
        for name in DTYPES:
            try:
                rows.append(one(rtopk, n, m, k, name, env["l2_bytes"], args.reps))
            except Exception as e:  # a failed case is reported, not fatal
                rows.append(dict(n=n, m=m, k=k, dtype=name, error=repr(e)))
            print(json.dumps(rows[-1]), flush=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "router_rows.json"), "w") as f:
        json.dump(dict(env=env, rows=rows), f, indent=1)
    with open(os.path.join(args.out, "router_rows.md"), "w") as f:
        f.write(report(rows, env))
    return 0 if all(r.get("check") == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
