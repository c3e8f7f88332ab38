#!/usr/bin/env python3
"""The package's plan and GPU time beside the CLI's on the same shapes: the live device's program
(`rtopk.plan`, unsorted) against the `h100` preset's, and `rtopk.topk` (unsorted, sorted) timed
behind a spin on normal rows, median of 30 over 8 rotated inputs.

    python3 package_vs_cli.py N:M:K ...
"""

from __future__ import annotations

import statistics
import sys

import rtopk
import torch

sys.path.insert(0, "bench")
from spin_timing import spin_timed_ms


def steps(program: dict) -> str:
    return "; ".join(f"{s['unit']} {s['grid']}" for s in program["steps"])


for spec in sys.argv[1:]:
    n, m, k = (int(v) for v in spec.split(":"))
    live = rtopk.plan(n, m, k, sorted=False)
    preset = rtopk.plan(n, m, k, sorted=False, gpu="h100")
    print(f"{n} x {m} k={k}: live {steps(live)}")
    if steps(live) != steps(preset):
        print(f"    preset {steps(preset)}")
    xs = [torch.randn(n, m, device="cuda") for _ in range(8)]
    for sort in (False, True):
        for x in xs[:2]:
            rtopk.topk(x, k, sorted=sort)
        t = [
            spin_timed_ms(lambda x=xs[i % 8], k=k, s=sort: rtopk.topk(x, k, sorted=s))
            for i in range(30)
        ]
        print(f"    rtopk.topk sorted={sort}: {statistics.median(t) * 1000:.1f} us")
