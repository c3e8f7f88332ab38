#!/usr/bin/env python3
"""rtopk.topk on int8, uint8, int16, int32 and int64 CUDA tensors, and on float64 ones,
against torch.topk on the same tensors, beside float32 and float16 rows of the same shapes: GPU
time per call over the RTop-K grid (issue: every dtype torch.topk takes, docs/performance.md).

Method (bench/dtypes16.py's, which is bench/torch_op.py's): standard-normal float32 draws on
the device (torch.randn, seeded per shape); the integer inputs are the same draws scaled and
rounded (int64: x 2^50; int32: x 2^26; int16: x 4096; int8: x 32; uint8: x 32 + 128;
saturated at the type's ends), float16 the draws rounded to nearest, float64 standard-normal
draws of its own (torch.randn in float64: 53-bit mantissas); each type's buffers rotated over
ceil(4 x L2 / input bytes) copies (at most 64) so that no call finds its input in L2; per
call, CUDA events with the GPU kept busy ahead of the start event; median of --reps calls
after 2 warm-up calls; sorted=False (--sorted: both calls sorted=True, torch.topk's default),
largest, exact search. Every case is checked first: rtopk's values, sorted per row, equal
torch.topk's, and each is the input at its index.

Reported: torch.topk's time over rtopk's per type (targets: int32 and float64 >= 10x,
geometric mean over the grid); rtopk's elements per second on each type over float16's
(target: int8 and uint8 >= 1x) and over float32's.

    python3 bench/dtypes_int.py --out DIR [--quick] [--sorted] [--reps 15] [--types float32,...]

Writes DIR/dtypes_int.json and DIR/dtypes_int.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Any, Dict, List

import torch

from dtypes16 import MAX_BUFFERS, case_lines, sweep
from torch_op import device_env, geomean

GRID_N = [1 << 16, 1 << 18, 1 << 20]
# name: (dtype, scale, offset, least, greatest)
INTS = {
    "int64": (torch.int64, float(1 << 50), 0.0, -(2**63), 2**63 - 1),
    "int32": (torch.int32, float(1 << 26), 0.0, -(2**31), 2**31 - 1),
    "int16": (torch.int16, 4096.0, 0.0, -(2**15), 2**15 - 1),
    "int8": (torch.int8, 32.0, 0.0, -128, 127),
    "uint8": (torch.uint8, 32.0, 128.0, 0, 255),
}
TYPES = ["float32", "float16", "float64", *INTS]


def inputs(n: int, m: int, l2: int) -> Dict[str, List[torch.Tensor]]:
    """Each type's rotation of buffers, made from the same float32 draws."""
    gen = torch.Generator(device="cuda").manual_seed(n * 1_000_003 + m)
    count32 = min(max(math.ceil(4 * l2 / (n * m * 4)), 1), MAX_BUFFERS)
    base = [torch.randn(n, m, device="cuda", generator=gen) for _ in range(count32)]
    out: Dict[str, List[torch.Tensor]] = {"float32": base}
    count16 = min(max(math.ceil(4 * l2 / (n * m * 2)), 1), MAX_BUFFERS)
    out["float16"] = [base[i % count32].half() for i in range(count16)]
    count64 = min(max(math.ceil(4 * l2 / (n * m * 8)), 1), MAX_BUFFERS)
    out["float64"] = [
        torch.randn(n, m, device="cuda", dtype=torch.float64, generator=gen) for _ in range(count64)
    ]
    for name, (dtype, scale, offset, lo, hi) in INTS.items():
        size = torch.empty(0, dtype=dtype).element_size()
        count = min(max(math.ceil(4 * l2 / (n * m * size)), 1), MAX_BUFFERS)
        out[name] = [
            (base[i % count32].double() * scale + offset).round().clamp(lo, hi).to(dtype)
            for i in range(count)
        ]
    return out


def summary(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    by = {(r["n"], r["m"], r["k"], r["dtype"]): r for r in rows if "rtopk_ms" in r}
    out: Dict[str, Any] = {"torch_over_rtopk": {}, "elements_per_s_over": {}}
    for name in TYPES:
        sp = [r["torch_over_rtopk"] for r in rows if r.get("dtype") == name and "rtopk_ms" in r]
        if sp:
            out["torch_over_rtopk"][name] = dict(geomean=geomean(sp), worst=min(sp), cells=len(sp))
    for base in ("float32", "float16"):
        per: Dict[str, Any] = {}
        for name in ["float64", *INTS]:
            ratios = [
                by[(*key[:3], base)]["rtopk_ms"] / r["rtopk_ms"]
                for key, r in by.items()
                if key[3] == name and (*key[:3], base) in by
            ]
            if ratios:
                per[name] = dict(geomean=geomean(ratios), worst=min(ratios), cells=len(ratios))
        out["elements_per_s_over"][base] = per
    return out


def table(rows: List[Dict[str, Any]], s: Dict[str, Any], env: Dict[str, Any]) -> str:
    lines = [
        f"# rtopk.topk vs torch.topk on integer rows — {env['device']}, {env['date']}",
        "",
        f"Command: `{env['command']}`; torch {env['torch']} (CUDA {env['cuda']}), rtopk "
        f"{env['rtopk']}. {env['method']}",
        "",
        "## torch.topk / rtopk.topk on the same tensors (target: int32 and float64 >= 10x)",
        "",
        "| dtype | geometric mean | worst | cells |",
        "|---|---|---|---|",
    ]
    for name, v in s["torch_over_rtopk"].items():
        lines.append(f"| {name} | {v['geomean']:.2f}x | {v['worst']:.2f}x | {v['cells']} |")
    lines += [
        "",
        "## rtopk's elements/s on each type over float16's and float32's (same shapes)",
        "",
        "| dtype | over float16 (geomean, worst) | over float32 (geomean, worst) |",
        "|---|---|---|",
    ]
    for name in ["float64", *INTS]:
        cells = []
        for base in ("float16", "float32"):
            v = s["elements_per_s_over"][base].get(name)
            cells.append(f"{v['geomean']:.2f}x, {v['worst']:.2f}x" if v else "-")
        lines.append(f"| {name} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines + case_lines(rows)) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--reps", type=int, default=15, help="CUDA-event calls per case (median)")
    ap.add_argument("--quick", action="store_true", help="N = 2^20 only")
    ap.add_argument(
        "--sorted",
        action="store_true",
        help="both calls with sorted=True (torch.topk's default) instead of sorted=False",
    )
    ap.add_argument(
        "--types", default=",".join(TYPES), help="comma-separated dtypes (default: all)"
    )
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    import rtopk

    env = device_env(
        rtopk,
        method=(
            "Standard-normal float32 draws (torch.randn, seeded per shape); integers = the "
            "draws scaled, rounded and saturated, float16 = the draws rounded, float64 = "
            "standard-normal float64 draws of its own; buffers rotated "
            f"past L2; CUDA events behind a spin; median of {args.reps} calls; "
            f"sorted={args.sorted}, "
            "largest, exact."
        ),
    )
    l2 = env["l2_bytes"]
    print(json.dumps(env, indent=1), flush=True)
    grid_n = [1 << 20] if args.quick else GRID_N
    types = [t for t in args.types.split(",") if t]
    unknown = sorted(set(types) - set(TYPES))
    if unknown:
        ap.error(f"--types: unknown {unknown}; known: {TYPES}")
    rows = sweep(rtopk, grid_n, types, lambda n, m: inputs(n, m, l2), args.reps, args.sorted)
    s = summary(rows)
    with open(os.path.join(args.out, "dtypes_int.json"), "w") as f:
        json.dump(dict(env=env, summary=s, cases=rows), f, indent=1)
    text = table(rows, s, env)
    with open(os.path.join(args.out, "dtypes_int.md"), "w") as f:
        f.write(text)
    print(text)
    bad = [r for r in rows if r.get("check") != "ok"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
