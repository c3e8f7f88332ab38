#!/usr/bin/env python3
"""The split-rows regimes on the GPU: rtopk.topk (the split-row route where the plan takes it)
against torch.topk, on the same data, kernel time by CUDA events; with the device's measured
read bandwidth, so that each case reports the fraction of it that rtopk reaches.

Method:
* data: standard normal float32 made on the device by the workspace's own generator
  (`fill_normal` of crates/rtopk-cuda/kernels/utilities.cu, compiled here with CuPy), seeded
  per shape and buffer as `rtopk bench cuda` and bench/peers/ seed it (N 1000003 + M 101 +
  buffer), so rtopk, torch.topk, FlashInfer and CUB see the same values;
* inputs rotated over ceil(2 x L2 / input bytes) copies (one when the input alone is past
  2 x L2; at most 32), so that no call finds its input in L2;
* GPU time: each call between two CUDA events with the GPU kept busy ahead of the start
  event (torch.cuda._sleep), median of --reps calls after 2 warm-up calls;
* read bandwidth: a sum over a 2 GiB buffer (torch), best of 10, in the same run;
* both unsorted (rtopk's index order; torch.topk's cheapest mode), largest, no iteration
  counts (rtopk may then split rows); every case checked first: the values rtopk returns,
  sorted per row, equal torch.topk's, and the indices point at those values.

    python3 bench/split_rows.py --out OUT [--grid split,vector,wide,appendix] [--reps 20]
        [--dtype f32|f16|bf16]

Grids: split, vector, wide, appendix (the split-rows regimes), and the large-k grids of
`rtopk bench cuda` (crates/rtopk-tools/src/gpu_bench.rs): indexer, sampler, vector-k; radix-mid: the
rows below 2^20 that the radix select takes from 512 (8-16 rows) or 1024 (fewer); radix-mid16: the
8-16 rows of that tier in f16 and bf16, whose widths the split cuts evenly or leaves a last chunk.
`--dtype f16|bf16`: the same float32 draws rounded to the 16-bit type (round to nearest even,
as bench/peers/ rounds them), both contenders given the 16-bit tensor.

Writes OUT/split_rows.json (OUT/split_rows_<dtype>.json for 16-bit) and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import json
import math
import os
import statistics
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "crates" / "rtopk-cuda" / "kernels"

GRIDS: dict[str, list[tuple[int, int, int]]] = {
    "split": [
        (n, m, k)
        for n in (1, 4, 16, 64, 256, 1024)
        for m in (32768, 131072, 262144, 1048576)
        for k in (50, 256, 1024)
    ],
    "vector": [(1, m, k) for m in (1 << 24, 1 << 26, 1 << 28) for k in (64, 1024, 16384)],
    "wide": [(16384, m, k) for m in (16384, 32768, 65536) for k in (50, 256, 1024)],
    # Appendix B's cells below 8x torch.topk in the record (k = 512 from M = 3072, M = 8192)
    "appendix": [(1 << 16, m, k) for m in (3072, 4096, 8192) for k in (512,)]
    + [(1 << 16, 8192, k) for k in (32, 128, 256)],
    "indexer": [
        (n, m, k)
        for n in (1, 2, 8, 32, 96, 256)
        for m in (16384, 49152, 100000, 163840, 500000, 1 << 21)
        for k in (512, 1024, 2048)
    ],
    "sampler": [
        (n, m, k) for n in (1, 16, 128) for m in (32000, 100352, 262144) for k in (20, 64, 1024)
    ],
    "vector-k": [(1, m, k) for m in (1 << 22, 1 << 25, 1 << 28) for k in (256, 2048, 8192, 32768)],
    # rows below 2^20 that rtopk-plan's RADIX_MID_ROW and RADIX_MID_WIDE_ROW tiers give the
    # radix select
    "radix-mid": [
        (n, m, k) for n in (8, 12, 16) for m in (393216, 500000, 786432) for k in (512, 2048)
    ]
    + [(n, m, k) for n in (1, 4) for m in (786432, 1000000) for k in (1024, 4096)],
    # 16-bit rows of RADIX_MID_ROW's tier: widths the split cuts into whole or equal chunks
    # (786432; 400000 at k = 512 and 1024, 500000 at 512, 600000 at 1024) and widths it leaves
    # a last chunk, which the tier gives the radix select in f16 and bf16 (rtopk-plan's
    # leaves_last_chunk)
    "radix-mid16": [
        (n, m, k)
        for n in (8, 12, 16)
        for m in (400000, 500000, 600000, 786432)
        for k in (512, 1024, 2048)
    ],
}
DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
SPIN = 20_000_000


def fill_normal_kernel() -> Any:
    """The workspace's fill_normal, compiled by CuPy (NVRTC) from the kernel sources."""
    import cupy  # type: ignore[import-not-found]

    common = (KERNELS / "common.cuh").read_text().replace("#pragma once", "")
    util = (KERNELS / "utilities.cu").read_text().replace('#include "common.cuh"', "")
    code = "typedef float elem_t;\ntypedef unsigned int idx_t;\n" + common + util
    return cupy.RawModule(code=code, options=("--std=c++17",)).get_function("fill_normal")


def fill(kernel: Any, x: torch.Tensor, seed: int) -> None:
    import cupy  # type: ignore[import-not-found]

    n = x.numel()
    buf = cupy.asarray(x.view(-1))
    threads = 256
    blocks = min((n + threads - 1) // threads, 132 * 64)
    kernel((blocks,), (threads,), (buf, cupy.uint64(n), cupy.uint64(seed)))
    torch.cuda.synchronize()


def gpu_ms(fn: Callable[[], Any]) -> float:
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(SPIN)
    start.record()
    fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end)


def median_ms(fn: Callable[[int], Any], copies: int, reps: int) -> float:
    for i in range(2):
        fn(i % copies)
    return statistics.median(gpu_ms(functools.partial(fn, i % copies)) for i in range(reps))


def read_gbps() -> float:
    x = torch.ones(1 << 29, device="cuda")  # 2 GiB
    best = math.inf
    for _ in range(10):
        best = min(best, gpu_ms(x.sum))
    del x
    return (1 << 31) / (best * 1e-3) / 1e9


def check(x: torch.Tensor, k: int, got: tuple[torch.Tensor, torch.Tensor]) -> str:
    want = torch.topk(x, k, dim=1, sorted=True).values
    vals, idx = got
    if not torch.equal(torch.sort(vals, dim=1, descending=True).values, want):
        return "values differ from torch.topk"
    if not torch.equal(torch.gather(x, 1, idx.long()), vals):
        return "indices do not point at the values"
    return "ok"


def run_case(
    fill_k: Any,
    n: int,
    m: int,
    k: int,
    reps: int,
    l2: int,
    free: int,
    dtype: torch.dtype = torch.float32,
) -> dict[str, Any]:
    import rtopk  # type: ignore[import-not-found]

    nbytes = n * m * dtype.itemsize
    copies = max(1, min(32, math.ceil(2 * l2 / nbytes), (free // 3) // max(nbytes, 1)))
    xs = []
    for c in range(copies):
        x = torch.empty((n, m), device="cuda", dtype=torch.float32)
        # the seed of `rtopk bench cuda` (bench.rs normal_seed) and bench/peers: the same data
        fill(fill_k, x, seed=(n * 1_000_003 + m * 101 + c) % (1 << 64))
        xs.append(x if dtype == torch.float32 else x.to(dtype))
        del x
    verdict = check(xs[0], k, rtopk.topk(xs[0], k, sorted=False))
    row: dict[str, Any] = {"n": n, "m": m, "k": k, "copies": copies, "bytes": nbytes}
    row["check"] = verdict
    row["rtopk_ms"] = median_ms(lambda i: rtopk.topk(xs[i], k, sorted=False), copies, reps)
    row["torch_ms"] = median_ms(lambda i: torch.topk(xs[i], k, dim=1, sorted=False), copies, reps)
    xs.clear()  # the copies' memory goes back before the next shape
    torch.cuda.empty_cache()
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--grid", default="split,vector,wide,appendix")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--dtype", choices=sorted(DTYPES), default="f32")
    a = ap.parse_args()
    dtype = DTYPES[a.dtype]
    os.makedirs(a.out, exist_ok=True)
    props = torch.cuda.get_device_properties(0)
    l2 = int(getattr(props, "L2_cache_size", 50 << 20))
    gbps = read_gbps()
    fill_k = fill_normal_kernel()
    rows: list[dict[str, Any]] = []
    print(f"device {props.name}, read bandwidth {gbps:.0f} GB/s (sum over 2 GiB)")
    print(
        "| grid | N | M | k | rtopk ms | torch ms | torch / rtopk | rtopk GB/s | % read bw "
        "| check |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for grid in a.grid.split(","):
        for n, m, k in GRIDS[grid]:
            try:
                free = torch.cuda.mem_get_info()[0]
                r = run_case(fill_k, n, m, k, a.reps, l2, free, dtype)
            except Exception as e:  # one case's failure is recorded; the run goes on
                traceback.print_exc()
                r = {"n": n, "m": m, "k": k, "error": repr(e)}
                torch.cuda.empty_cache()
            r["grid"], r["dtype"] = grid, a.dtype
            rows.append(r)
            if "error" in r:
                print(f"| {grid} | {n} | {m} | {k} | error: {r['error'][:80]} |")
                continue
            bw = r["bytes"] / (r["rtopk_ms"] * 1e-3) / 1e9
            r["rtopk_gbps"], r["read_fraction"] = bw, bw / gbps
            print(
                f"| {grid} | {n} | {m} | {k} | {r['rtopk_ms']:.4f} | {r['torch_ms']:.4f} | "
                f"{r['torch_ms'] / r['rtopk_ms']:.2f} | {bw:.0f} | {100 * bw / gbps:.0f} | "
                f"{r['check']} |",
                flush=True,
            )
    env = {
        "device": props.name,
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="minutes"),
        "torch": torch.__version__,
        "read_gbps": gbps,
        "l2_bytes": l2,
        "reps": a.reps,
        "dtype": a.dtype,
        "argv": sys.argv,
    }
    name = "split_rows.json" if a.dtype == "f32" else f"split_rows_{a.dtype}.json"
    with open(os.path.join(a.out, name), "w") as f:
        json.dump({"environment": env, "cases": rows}, f, indent=1)
    for grid in sorted({r["grid"] for r in rows}):
        ok = [r for r in rows if r["grid"] == grid and "rtopk_ms" in r]
        if ok:
            ratios = [r["torch_ms"] / r["rtopk_ms"] for r in ok]
            geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
            worst = min(ok, key=lambda r: r["torch_ms"] / r["rtopk_ms"])
            print(
                f"{grid}: torch/rtopk geometric mean {geo:.2f} over {len(ok)} cases; worst "
                f"{worst['torch_ms'] / worst['rtopk_ms']:.2f} "
                f"at N={worst['n']} M={worst['m']} k={worst['k']}"
            )
    bad = [r for r in rows if r.get("check", "error") != "ok"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
