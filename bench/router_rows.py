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
    python3 bench/router_rows.py --grid --out DIR [--reps 15]

Writes DIR/router_rows.json and DIR/router_rows.md. With --grid: every M in {8, ..., 512}
and k in {1, 2, 4, 8} (k <= M) on 32 MB of each type, rtopk against the bisection only (the
plan's rule, docs/kernel.md "Pick rows"), each case checked bit for bit against the
bisection's answer; writes DIR/pick_grid.json and DIR/pick_grid.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Any, Callable, Dict, List

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
    ok = ok and torch.equal(unsorted.values.sort(dim=-1).values, want.values.sort(dim=-1).values)
    torch.cuda.synchronize()
    return "ok" if ok else "DIFFERS"


def plain_and_counted(
    rtopk: Any, xs: List[torch.Tensor], k: int, sorted_: bool
) -> tuple[List[Callable[..., Any]], List[Callable[..., Any]]]:
    """rtopk's calls on the rotation, and the same calls with counts asked: the bisection's
    route (docs/kernel.md, "Pick rows"), which also writes one count per row."""
    plain = [lambda x=x: rtopk.topk(x, k, sorted=sorted_) for x in xs]
    counted = [lambda x=x: rtopk.topk(x, k, sorted=sorted_, return_iterations=True) for x in xs]
    return plain, counted


def one(rtopk: Any, n: int, m: int, k: int, name: str, l2: int, reps: int) -> Dict[str, Any]:
    gen = torch.Generator(device="cuda").manual_seed(n * 1_000_003 + m)
    size = torch.empty((), dtype=DTYPES[name]).element_size()
    count = min(max(math.ceil(4 * l2 / (n * m * size)), 1), MAX_BUFFERS)
    xs = [torch.randn(n, m, device="cuda", generator=gen).to(DTYPES[name]) for _ in range(count)]
    row: Dict[str, Any] = dict(n=n, m=m, k=k, dtype=name, buffers=count)
    row["check"] = check(rtopk, xs[0], k)
    for sorted_ in (False, True):
        tag = "sorted" if sorted_ else "unsorted"
        ours, counted = plain_and_counted(rtopk, xs, k, sorted_)
        theirs = [lambda x=x, s=sorted_: torch.topk(x, k, sorted=s) for x in xs]
        row[f"rtopk_{tag}_ms"] = median_gpu_ms(ours, reps)
        row[f"torch_{tag}_ms"] = median_gpu_ms(theirs, reps)
        row[f"bisect_{tag}_ms"] = median_gpu_ms(counted, reps)
        row[f"torch_over_rtopk_{tag}"] = row[f"torch_{tag}_ms"] / row[f"rtopk_{tag}_ms"]
        row[f"bisect_over_rtopk_{tag}"] = row[f"bisect_{tag}_ms"] / row[f"rtopk_{tag}_ms"]
    row["rtopk_unsorted_gbps"] = n * m * size / row["rtopk_unsorted_ms"] / 1e6
    row["bisect_unsorted_gbps"] = n * m * size / row["bisect_unsorted_ms"] / 1e6
    return row


GRID_M = [8, 16, 32, 64, 128, 256, 512]
GRID_K = [1, 2, 4, 8]


def grid_one(rtopk: Any, m: int, k: int, name: str, l2: int, reps: int) -> dict[str, Any]:
    """Pick (the default) against the bisection on 32 MB of rows of m, both orders."""
    size = torch.empty((), dtype=DTYPES[name]).element_size()
    n = (32 << 20) // (m * size)
    gen = torch.Generator(device="cuda").manual_seed(n * 1_000_003 + m)
    count = min(max(math.ceil(4 * l2 / (n * m * size)), 1), MAX_BUFFERS)
    xs = [torch.randn(n, m, device="cuda", generator=gen).to(DTYPES[name]) for _ in range(count)]
    row: dict[str, Any] = {"n": n, "m": m, "k": k, "dtype": name, "check": "ok"}
    for sorted_ in (False, True):
        tag = "sorted" if sorted_ else "unsorted"
        a = rtopk.topk(xs[0], k, sorted=sorted_)
        b = rtopk.topk(xs[0], k, sorted=sorted_, return_iterations=True)
        if not (torch.equal(a.values, b.values) and torch.equal(a.indices, b.indices)):
            row["check"] = "DIFFERS"
        ours, counted = plain_and_counted(rtopk, xs, k, sorted_)
        row[f"rtopk_{tag}_ms"] = median_gpu_ms(ours, reps)
        row[f"bisect_{tag}_ms"] = median_gpu_ms(counted, reps)
        row[f"bisect_over_rtopk_{tag}"] = row[f"bisect_{tag}_ms"] / row[f"rtopk_{tag}_ms"]
    return row


def grid_report(rows: list[dict[str, Any]], env: dict[str, Any]) -> str:
    lines = [
        f"# Pick rows against the bisection, 32 MB per cell — {env['device']}, {env['date']}",
        "",
        f"Command: `{env['command']}`; rtopk {env['rtopk']}. Bisection time over rtopk's "
        "(the default; pick rows where the plan picks), GPU ms medians.",
        "",
        "| dtype | M | k | N | unsorted | sorted | check |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "rtopk_unsorted_ms" not in r:
            lines.append(f"| {r['dtype']} | {r['m']} | {r['k']} | | {r.get('error')} | | |")
            continue
        lines.append(
            f"| {r['dtype']} | {r['m']} | {r['k']} | {r['n']} "
            f"| {r['bisect_over_rtopk_unsorted']:.2f}x | {r['bisect_over_rtopk_sorted']:.2f}x "
            f"| {r['check']} |"
        )
    return "\n".join(lines) + "\n"


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
            lines.append(f"| {r['n']} | {r['m']} | {r['k']} | {r['dtype']} | {r.get('error')} |")
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
    ap.add_argument("--grid", action="store_true")
    args = ap.parse_args()
    import rtopk

    env = device_env(rtopk, method=__doc__.split("\n\n")[1].replace("\n", " "))
    if args.grid:
        cells: list[dict[str, Any]] = []
        for name in DTYPES:
            for m in GRID_M:
                for k in (k for k in GRID_K if k <= m):
                    try:
                        cells.append(grid_one(rtopk, m, k, name, env["l2_bytes"], args.reps))
                    except Exception as e:  # a failed case is reported, not fatal
                        cells.append({"m": m, "k": k, "dtype": name, "error": repr(e)})
                    print(json.dumps(cells[-1]), flush=True)
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "pick_grid.json"), "w") as f:
            json.dump({"env": env, "rows": cells}, f, indent=1)
        with open(os.path.join(args.out, "pick_grid.md"), "w") as f:
            f.write(grid_report(cells, env))
        return 0 if all(r.get("check") == "ok" for r in cells) else 1
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
