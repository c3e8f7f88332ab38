#!/usr/bin/env python3
"""What the first `rtopk.topk` of a shape and dtype costs in a fresh Python process, beyond
the CUDA context: one child process per case creates its input with torch (the context is
then open), synchronises, and times its first `rtopk.topk` call to completion, then the same
call again (the steady cost). `first - steady` is what the first call pays for building or
loading kernels; with the kernel cache prepared (`python -m rtopk.cuda prepare`) that is
loading cubins from disk, without it NVRTC.

    python3 bench/first_call_py.py --out DIR [--label NAME]

Writes DIR/first_call_NAME.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

CASES = [
    # (n, m, k, dtype): a sampler row, a router batch, the paper's grid, a split row, 16-bit
    (1, 256, 8, "float32"),
    (64, 128256, 50, "float32"),
    (64, 128256, 50, "bfloat16"),
    (16384, 768, 64, "float32"),
    (16384, 768, 64, "float16"),
    (1, 1 << 22, 2048, "float32"),
    (8, 100_000, 1024, "bfloat16"),
]

CHILD = """
import json, sys, time
import torch
n, m, k, dtype = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
x = torch.randn(n, m, device="cuda").to(getattr(torch, dtype))
torch.cuda.synchronize()
t0 = time.perf_counter()
import rtopk
t1 = time.perf_counter()
rtopk.topk(x, k)
torch.cuda.synchronize()
t2 = time.perf_counter()
rtopk.topk(x, k)
torch.cuda.synchronize()
t3 = time.perf_counter()
print(json.dumps({"import_ms": (t1 - t0) * 1e3, "first_ms": (t2 - t1) * 1e3,
                  "steady_ms": (t3 - t2) * 1e3}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--label", default="run")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for n, m, k, dtype in CASES:
        argv = [sys.executable, "-c", CHILD, str(n), str(m), str(k), dtype]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            rows.append({"n": n, "m": m, "k": k, "dtype": dtype, "error": done.stderr[-400:]})
            continue
        rows.append({"n": n, "m": m, "k": k, "dtype": dtype, **json.loads(done.stdout)})
    (args.out / f"first_call_{args.label}.json").write_text(json.dumps(rows, indent=1))
    print(f"| case ({args.label}) | import ms | first call ms | steady ms | first - steady |")
    print("|---|---|---|---|---|")
    for r in rows:
        case = f"{r['n']} x {r['m']}, k = {r['k']}, {r['dtype']}"
        if "error" in r:
            print(f"| {case} | error: {r['error'][-120:]!r} | | | |")
            continue
        extra = r["first_ms"] - r["steady_ms"]
        print(
            f"| {case} | {r['import_ms']:.1f} | {r['first_ms']:.1f} | {r['steady_ms']:.2f} | "
            f"{extra:.1f} |"
        )


if __name__ == "__main__":
    main()
