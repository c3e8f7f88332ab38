#!/usr/bin/env python3
"""What the first `rtopk.topk` of a shape and dtype costs in a fresh Python process, beyond
the CUDA context: one child process per case creates its input with torch (the context is
then open), synchronises, and times its first `rtopk.topk` call to completion, then the same
call again (the steady cost). `first - steady` is what the first call pays for building or
loading kernels; with the kernel cache prepared (`python -m rtopk.cuda prepare`) that is
loading cubins from disk, without it NVRTC.

    python3 bench/first_call_py.py --out DIR [--label NAME] [--fresh-cache]

With --fresh-cache each child starts with an empty kernel cache of its own, so its first call
is served by the units the package ships (``rtopk.cuda.shipped_archs()``) or by NVRTC, and the
files it leaves in that cache count the units it compiled.

Writes DIR/first_call_NAME.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

CASES = [
    # (n, m, k, dtype, keyword arguments): a sampler row, a router batch, the paper's grid, a
    # split row, 16-bit, sorted output, the integer and 64-bit rows, rows of their own length
    # with a k per row, thresholds and hints
    (1, 256, 8, "float32", {}),
    (64, 128256, 50, "float32", {}),
    (64, 128256, 50, "bfloat16", {}),
    (16384, 768, 64, "float32", {}),
    (16384, 768, 64, "float16", {}),
    (1, 1 << 22, 2048, "float32", {}),
    (8, 100_000, 1024, "bfloat16", {}),
    (4096, 512, 32, "float32", {"sorted": False}),
    (4096, 512, 32, "int32", {}),
    (4096, 512, 32, "int8", {}),
    (4096, 256, 16, "float64", {}),
    (64, 32768, 2048, "float32", {"ragged": True}),
    (256, 4096, 64, "bfloat16", {"hint": True}),
]

CHILD = """
import json, os, sys, time
import torch
n, m, k, dtype = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
kw = json.loads(sys.argv[5])
g = torch.Generator(device="cuda").manual_seed(1)
x = torch.randn(n, m, device="cuda", generator=g)
if dtype.startswith("int"):
    x = (x * 1000).to(getattr(torch, dtype)) if dtype != "int8" else (x * 30).to(torch.int8)
else:
    x = x.to(getattr(torch, dtype))
args = {}
if kw.pop("ragged", False):
    args["lengths"] = torch.randint(1, m + 1, (n,), device="cuda", generator=g)
    args["k"] = torch.randint(1, k + 1, (n,), device="cuda", generator=g)
    args["width"] = k
if kw.pop("hint", False):
    args["hint"] = torch.zeros(n, device="cuda")
    args["return_threshold"] = True
args.update(kw)
kk = args.pop("k", k)
torch.cuda.synchronize()
t0 = time.perf_counter()
import rtopk
t1 = time.perf_counter()
rtopk.topk(x, kk, **args)
torch.cuda.synchronize()
t2 = time.perf_counter()
rtopk.topk(x, kk, **args)
torch.cuda.synchronize()
t3 = time.perf_counter()
cache = os.environ.get("RTOPK_CUDA_PTX_CACHE")
compiled = len(os.listdir(cache)) if cache and os.path.isdir(cache) else None
print(json.dumps({"import_ms": (t1 - t0) * 1e3, "first_ms": (t2 - t1) * 1e3,
                  "steady_ms": (t3 - t2) * 1e3, "compiled_units": compiled,
                  "shipped": rtopk.cuda.shipped_archs()}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--label", default="run")
    ap.add_argument(
        "--fresh-cache",
        action="store_true",
        help="give each child an empty kernel cache of its own (RTOPK_CUDA_PTX_CACHE), so that "
        "only shipped units or NVRTC can serve its first call; the files the child leaves there "
        "are the units it compiled",
    )
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    for n, m, k, dtype, kw in CASES:
        argv = [sys.executable, "-c", CHILD, str(n), str(m), str(k), dtype, json.dumps(kw)]
        env = dict(os.environ)
        with tempfile.TemporaryDirectory(prefix="rtopk-first-call-") as cache:
            if args.fresh_cache:
                env["RTOPK_CUDA_PTX_CACHE"] = cache
            done = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env)
        case = {"n": n, "m": m, "k": k, "dtype": dtype, "kw": kw}
        if done.returncode != 0:
            rows.append({**case, "error": done.stderr[-400:]})
            continue
        rows.append({**case, **json.loads(done.stdout)})
    (args.out / f"first_call_{args.label}.json").write_text(json.dumps(rows, indent=1))
    print(
        f"| case ({args.label}) | import ms | first call ms | steady ms | first - steady | "
        "units compiled |"
    )
    print("|---|---|---|---|---|---|")
    for r in rows:
        extra_kw = " ".join(f"{key}={val}" for key, val in r["kw"].items())
        label = f"{r['n']} x {r['m']}, k = {r['k']}, {r['dtype']} {extra_kw}".rstrip()
        if "error" in r:
            print(f"| {label} | error: {r['error'][-120:]!r} | | | | |")
            continue
        extra = r["first_ms"] - r["steady_ms"]
        compiled = "?" if r["compiled_units"] is None else r["compiled_units"]
        print(
            f"| {label} | {r['import_ms']:.1f} | {r['first_ms']:.1f} | {r['steady_ms']:.2f} | "
            f"{extra:.1f} | {compiled} |"
        )


if __name__ == "__main__":
    main()
