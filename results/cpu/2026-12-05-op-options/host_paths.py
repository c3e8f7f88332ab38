#!/usr/bin/env python3
"""Host microseconds per call of rtopk.topk's torch paths on a launch-bound row (1 x 256,
k = 16, unsorted), for the op schema before and after the options string: the eager call, the
custom op called directly, the eager call on an input that requires grad (the op with
autograd), the same plus backward, and torch.topk alongside.

Each figure: the median over --rounds rounds of --calls back-to-back calls timed together with
time.perf_counter (CUDA: synchronised before and after each round, so the figure is what the
calling thread pays while the launch queue stays short). Prints one JSON object.

    python3 host_paths.py --device cuda --dtype float32
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any, Callable

import rtopk
import rtopk.ops as ops
import torch


def per_call_us(fn: Callable[[], Any], calls: int, rounds: int, device: str) -> float:
    for _ in range(max(calls // 10, 50)):
        fn()
    out = []
    for _ in range(rounds):
        if device == "cuda":
            torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        out.append((time.perf_counter() - t) / calls * 1e6)
        if device == "cuda":
            torch.cuda.synchronize()
    return statistics.median(out)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cpu")
    p.add_argument("--dtype", default="float32")
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=7)
    a = p.parse_args()
    dt = getattr(torch, a.dtype)
    k = 16
    x = torch.randn(1, 256, device=a.device).to(dt)
    xg = x.clone().requires_grad_()
    op = torch.ops.rtopk.topk.default
    new_schema = hasattr(ops, "op_options")
    if new_schema:
        options = ops.op_options(sorted=False)

        def direct() -> Any:
            return op(x, k, -1, options, None, None, None)
    else:

        def direct() -> Any:
            return op(
                x,
                k,
                -1,
                True,
                False,
                "auto",
                None,
                0.0,
                64,
                False,
                None,
                None,
                None,
                False,
            )

    def backward() -> None:
        v = rtopk.topk(xg, k, sorted=False).values
        v.sum().backward()

    def torch_backward() -> None:
        torch.topk(xg, k, sorted=False).values.sum().backward()

    paths = {
        "rtopk.topk eager": lambda: rtopk.topk(x, k, sorted=False),
        "torch.ops.rtopk.topk": direct,
        "rtopk.topk, requires_grad": lambda: rtopk.topk(xg, k, sorted=False),
        "rtopk.topk + backward": backward,
        "torch.topk": lambda: torch.topk(x, k, sorted=False),
        "torch.topk, requires_grad": lambda: torch.topk(xg, k, sorted=False),
        "torch.topk + backward": torch_backward,
    }
    res = {
        name: per_call_us(fn, a.calls, a.rounds, a.device) for name, fn in paths.items()
    }
    print(
        json.dumps(
            {
                "schema": str(op._schema),
                "new_schema": new_schema,
                "device": a.device,
                "dtype": a.dtype,
                "torch": torch.__version__,
                "us": res,
            }
        )
    )


if __name__ == "__main__":
    main()
