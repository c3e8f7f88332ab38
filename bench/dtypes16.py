#!/usr/bin/env python3
"""rtopk.topk on float32, float16 and bfloat16 CUDA tensors against torch.topk on the same
tensors: GPU time per call over the RTop-K grid (the 16-bit targets of docs/performance.md).

Method (bench/torch_op.py's): standard-normal float32 inputs drawn on the device
(torch.randn, seeded per shape), the 16-bit inputs the same draws rounded to nearest
(``x.to(dtype)``); each type's buffers rotated over ceil(4 x L2 / input bytes) copies (at most
64) so that no call finds its input in L2; per call, CUDA events with the GPU kept busy ahead
of the start event (torch.cuda._sleep); median of --reps calls after 2 warm-up calls;
sorted=False, largest, exact search. Every case is checked first: rtopk's values, sorted per
row, equal torch.topk's.

Reported: for each shape and type the two times; rtopk's elements per second on 16-bit rows
over its float32 rows' (target >= 1.8x at N = 2^20, M in {256, 512, 768}); torch.topk's time
over rtopk's on each type (issue 35's target: geometric mean >= 15x on float16 and bfloat16
over the grid); and
rtopk's time with the iteration counts asked (``return_iterations=True``: the search
docs/contract.md §3 counts) over its time without.

    python3 bench/dtypes16.py --out DIR [--quick] [--reps 30]

Writes DIR/dtypes16.json and DIR/dtypes16.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import traceback
from typing import Any, Callable, Dict, List

import torch

# the timing method is bench/torch_op.py's (the script's folder is on sys.path)
from torch_op import device_env, geomean, median_gpu_ms

GRID_N = [1 << 14, 1 << 16, 1 << 18, 1 << 20]
GRID_M = [256, 512, 768]
GRID_K = [16, 32, 64, 96, 128]
DTYPES = {
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
}
MAX_BUFFERS = 64


def inputs(n: int, m: int, l2: int) -> Dict[str, List[torch.Tensor]]:
    """Each type's rotation of buffers: the same draws, rounded for the 16-bit types."""
    gen = torch.Generator(device="cuda").manual_seed(n * 1_000_003 + m)
    out: Dict[str, List[torch.Tensor]] = {}
    count32 = min(max(math.ceil(4 * l2 / (n * m * 4)), 1), MAX_BUFFERS)
    base = [torch.randn(n, m, device="cuda", generator=gen) for _ in range(count32)]
    out["float32"] = base
    for name in ("float16", "bfloat16"):
        count = min(max(math.ceil(4 * l2 / (n * m * 2)), 1), MAX_BUFFERS)
        out[name] = [base[i % count32].to(DTYPES[name]) for i in range(count)]
    return out


def check(rtopk: Any, x: torch.Tensor, k: int) -> str:
    got = rtopk.topk(x, k, sorted=False)
    want = torch.topk(x, k, sorted=False)
    same_dtype = got.values.dtype == x.dtype
    equal = torch.equal(got.values.sort(dim=-1).values, want.values.sort(dim=-1).values)
    picked = torch.equal(x.gather(-1, got.indices.long()), got.values)
    torch.cuda.synchronize()
    if not same_dtype:
        return f"VALUES ARE {got.values.dtype}"
    return "ok" if equal and picked else "VALUES DIFFER"


def one_case(
    rtopk: Any, xs: List[torch.Tensor], k: int, reps: int, ordered: bool = False
) -> Dict[str, Any]:
    """One case timed; ``ordered``: both calls with sorted=True (torch.topk's default)."""
    row: Dict[str, Any] = dict(check=check(rtopk, xs[0], k), buffers=len(xs))
    ours = [lambda x=x: rtopk.topk(x, k, sorted=ordered) for x in xs]
    theirs = [lambda x=x: torch.topk(x, k, sorted=ordered) for x in xs]
    # the same call with counts asked: the search docs/contract.md §3 counts (a 16-bit row
    # without counts ends its value phase at adjacent keys, docs/kernel.md "16-bit rows")
    counted = [lambda x=x: rtopk.topk(x, k, sorted=ordered, return_iterations=True) for x in xs]
    row["rtopk_ms"] = median_gpu_ms(ours, reps)
    row["torch_ms"] = median_gpu_ms(theirs, reps)
    row["counted_ms"] = median_gpu_ms(counted, reps)
    row["torch_over_rtopk"] = row["torch_ms"] / row["rtopk_ms"]
    row["counted_over_rtopk"] = row["counted_ms"] / row["rtopk_ms"]
    return row


def summary(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    by = {(r["n"], r["m"], r["k"], r["dtype"]): r for r in rows if "rtopk_ms" in r}
    out: Dict[str, Any] = {
        "elements_per_s_over_f32": {},
        "torch_over_rtopk": {},
        "counted_over_rtopk": {},
    }
    for name in ("float16", "bfloat16"):
        per_m = {}
        for m in GRID_M:
            ratios = [
                by[(1 << 20, m, k, "float32")]["rtopk_ms"] / by[(1 << 20, m, k, name)]["rtopk_ms"]
                for k in GRID_K
                if (1 << 20, m, k, "float32") in by and (1 << 20, m, k, name) in by
            ]
            if ratios:
                per_m[m] = dict(geomean=geomean(ratios), worst=min(ratios), ks=GRID_K)
        out["elements_per_s_over_f32"][name] = per_m

    def of_type(name: str, key: str) -> List[float]:
        return [r[key] for r in rows if r.get("dtype") == name and key in r]

    for name in DTYPES:
        sp = of_type(name, "torch_over_rtopk")
        if sp:
            out["torch_over_rtopk"][name] = dict(geomean=geomean(sp), worst=min(sp), cells=len(sp))
        counted = of_type(name, "counted_over_rtopk")
        if counted:
            out["counted_over_rtopk"][name] = dict(
                geomean=geomean(counted), worst=min(counted), best=max(counted)
            )
    return out


def table(rows: List[Dict[str, Any]], s: Dict[str, Any], env: Dict[str, Any]) -> str:
    lines = [
        f"# rtopk.topk vs torch.topk by dtype — {env['device']}, {env['date']}",
        "",
        f"Command: `{env['command']}`; torch {env['torch']} (CUDA {env['cuda']}), rtopk "
        f"{env['rtopk']}. {env['method']}",
        "",
        "## rtopk's elements/s on 16-bit rows over float32 (N = 2^20; target >= 1.8x)",
        "",
        "| dtype | M | geometric mean over k | worst k |",
        "|---|---|---|---|",
    ]
    for name, per_m in s["elements_per_s_over_f32"].items():
        for m, v in per_m.items():
            lines.append(f"| {name} | {m} | {v['geomean']:.2f}x | {v['worst']:.2f}x |")
    lines += [
        "",
        "## torch.topk / rtopk.topk on the same tensors "
        "(RTop-K grid; target >= 15x on float16 and bfloat16)",
        "",
        "| dtype | geometric mean | worst | cells |",
        "|---|---|---|---|",
    ]
    for name, v in s["torch_over_rtopk"].items():
        lines.append(f"| {name} | {v['geomean']:.2f}x | {v['worst']:.2f}x | {v['cells']} |")
    lines += [
        "",
        "## rtopk with counts asked over rtopk without (the counted search's cost)",
        "",
        "| dtype | geometric mean | least | most |",
        "|---|---|---|---|",
    ]
    for name, v in s["counted_over_rtopk"].items():
        lines.append(f"| {name} | {v['geomean']:.3f}x | {v['worst']:.3f}x | {v['best']:.3f}x |")
    return "\n".join(lines + case_lines(rows)) + "\n"


def case_lines(rows: List[Dict[str, Any]]) -> List[str]:
    """The report's last section: every case's two times, their ratio and its check."""
    lines = [
        "",
        "## Every case (GPU ms, median)",
        "",
        "| N | M | k | dtype | rtopk | torch | torch/rtopk | check |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "rtopk_ms" in r:
            lines.append(
                f"| {r['n']} | {r['m']} | {r['k']} | {r['dtype']} | {r['rtopk_ms']:.4f} | "
                f"{r['torch_ms']:.4f} | {r['torch_over_rtopk']:.2f} | {r['check']} |"
            )
        else:
            lines.append(
                f"| {r['n']} | {r['m']} | {r['k']} | {r['dtype']} | error: {r['error']} |||||"
            )
    return lines


def sweep(
    rtopk: Any,
    grid_n: List[int],
    types: List[str],
    inputs_of: Callable[[int, int], Dict[str, List[torch.Tensor]]],
    reps: int,
    ordered: bool = False,
) -> List[Dict[str, Any]]:
    """Every (N, M, k, type) of the grid timed (`one_case`, sorted output where `ordered`),
    each shape's inputs made once by `inputs_of(n, m)`; a case that fails is kept with its
    error."""
    rows: List[Dict[str, Any]] = []
    for n in grid_n:
        for m in GRID_M:
            torch.cuda.empty_cache()
            bufs = inputs_of(n, m)
            for k in GRID_K:
                for name in types:
                    row: Dict[str, Any] = dict(n=n, m=m, k=k, dtype=name)
                    try:
                        row.update(one_case(rtopk, bufs[name], k, reps, ordered))
                    except Exception as e:
                        traceback.print_exc()
                        row["error"] = f"{type(e).__name__}: {e}"
                    rows.append(row)
                    print(json.dumps(row), flush=True)
            del bufs
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--reps", type=int, default=30, help="CUDA-event calls per case (median)")
    ap.add_argument("--quick", action="store_true", help="N = 2^20 only")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    import rtopk

    env = device_env(
        rtopk,
        method=(
            "Standard-normal float32 draws (torch.randn, seeded per shape), 16-bit = the same "
            "draws rounded to nearest; buffers rotated past L2; CUDA events behind a spin; "
            f"median of {args.reps} calls; sorted=False, largest, exact."
        ),
    )
    l2 = env["l2_bytes"]
    print(json.dumps(env, indent=1), flush=True)
    grid_n = [1 << 20] if args.quick else GRID_N
    rows = sweep(rtopk, grid_n, list(DTYPES), lambda n, m: inputs(n, m, l2), args.reps)
    s = summary(rows)
    with open(os.path.join(args.out, "dtypes16.json"), "w") as f:
        json.dump(dict(env=env, summary=s, cases=rows), f, indent=1)
    text = table(rows, s, env)
    with open(os.path.join(args.out, "dtypes16.md"), "w") as f:
        f.write(text)
    print(text)
    bad = [r for r in rows if r.get("check") != "ok"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
