#!/usr/bin/env python3
"""Per-kernel GPU time (torch.profiler, median of 20 calls, inputs L2-resident) of
rtopk.topk(x, k, sorted=False) plain, with return_threshold=True, and hinted with
return_threshold=True (the previous call's thresholds), on the shapes given
(NxM:K). Usage: thr_prof.py OUT.json NxM:K ..."""

import json
import statistics
import sys

import rtopk
import torch
from torch.profiler import ProfilerActivity, profile


def kernels(fn, calls=20):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    ev = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    ev.sort(key=lambda e: e.time_range.start)
    per = len(ev) // calls
    rows = []
    for j in range(per):
        d = [ev[i * per + j].time_range.elapsed_us() for i in range(calls)]
        rows.append((ev[j].name[:60], round(statistics.median(d), 2)))
    return rows


out = {}
for text in sys.argv[2:]:
    dims, k = text.split(":")
    n, m = (int(v) for v in dims.split("x"))
    k = int(k)
    gen = torch.Generator(device="cuda").manual_seed(n * 7 + m)
    x = torch.randn(n, m, device="cuda", generator=gen)
    h = rtopk.topk(x, k, sorted=False, return_threshold=True).threshold
    runs = {
        "plain": kernels(lambda: rtopk.topk(x, k, sorted=False)),
        "plain+thr": kernels(lambda: rtopk.topk(x, k, sorted=False, return_threshold=True)),
        "hinted+thr": kernels(
            lambda: rtopk.topk(x, k, sorted=False, hint=h, return_threshold=True)
        ),
    }
    out[text] = runs
    print(text)
    for name, rows in runs.items():
        total = sum(d for _, d in rows)
        print(f"  {name:<11} {total:7.2f} us: " + ", ".join(f"{a} {d:.2f}" for a, d in rows))
json.dump(out, open(sys.argv[1], "w"), indent=1)
