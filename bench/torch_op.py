#!/usr/bin/env python3
"""rtopk.topk on torch CUDA tensors against torch.topk, from Python: GPU time (CUDA events)
and host time (wall clock), over the RTop-K grid and small shapes; and what the Python side
costs (eager path, custom-op path, autograd path) on top of the kernel's own launch.

Method (the same as bench/torch_topk.py for the GPU time):
* inputs: standard-normal float32 (torch.randn on the device, seeded per shape), rotated over
  ceil(4 x L2 / input bytes) buffers (at most 64) so that no call finds its input in L2;
* GPU time: per call, between two CUDA events with the GPU kept busy ahead of the start event
  (torch.cuda._sleep), so the host's submission latency is not in it; median of --reps calls
  after 2 warm-up calls;
* host time: --calls back-to-back calls after warm-up, timed with time.perf_counter: "host"
  is the time until the last call returned (what the caller's thread pays per call), "wall"
  the time until the GPU finished them (synchronised once at the end), both per call;
* sorted=False for both (RTop-K's output is in index order; torch.topk's "sorted=False" is
  its cheapest mode); the small shapes also with sorted=True;
* every case is checked first: the values rtopk returns, sorted per row, equal torch.topk's.

One run, unattended: an error in one case is printed and recorded, and the run goes on.

    python3 bench/torch_op.py --out results/python [--quick] [--reps 30] [--calls 300]

Writes OUT/torch_op.json (every case and the environment) and prints a table.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import statistics
import sys
import time
import traceback
from typing import Any, Callable, Dict, List, Optional

import torch

from spin_timing import spin_timed_ms

GRID_N = [1 << 14, 1 << 16, 1 << 18, 1 << 20]
GRID_M = [256, 512, 768]
GRID_K = [16, 32, 64, 96, 128]
SMALL_N = [1, 16, 256, 1024]
SMALL_M = [256, 4096, 32000]
SMALL_K = [16, 128]
MAX_BUFFERS = 64


def gpu_ms(fn: Callable[[], Any]) -> float:
    """Milliseconds of one call of ``fn`` between CUDA events, queued behind a spin."""
    return spin_timed_ms(fn)


def median_gpu_ms(calls: List[Callable[..., Any]], reps: int) -> float:
    for c in calls[:2]:
        c()
    times = [gpu_ms(calls[r % len(calls)]) for r in range(reps)]
    return statistics.median(times)


def host_us(calls: List[Callable[..., Any]], count: int, device: str = "cuda") -> Dict[str, float]:
    """Microseconds per call: host (until the last call returned) and wall (until done)."""
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    for _ in range(3):
        for c in calls[: min(len(calls), 8)]:
            c()
    sync()
    t0 = time.perf_counter()
    for r in range(count):
        calls[r % len(calls)]()
    t1 = time.perf_counter()
    sync()
    t2 = time.perf_counter()
    return {"host_us": (t1 - t0) / count * 1e6, "wall_us": (t2 - t0) / count * 1e6}


def buffers(n: int, m: int, l2: int, seed: int) -> List[torch.Tensor]:
    nbytes = max(n * m * 4, 1)
    count = min(max(math.ceil(4 * l2 / nbytes), 1), MAX_BUFFERS)
    gen = torch.Generator(device="cuda").manual_seed(seed)
    return [torch.randn(n, m, device="cuda", generator=gen) for _ in range(count)]


def check(rtopk: Any, x: torch.Tensor, k: int, sorted_: bool) -> str:
    got = rtopk.topk(x, k, sorted=sorted_).values.sort(dim=-1).values
    want = torch.topk(x, k, sorted=sorted_).values.sort(dim=-1).values
    torch.cuda.synchronize()
    return "ok" if torch.equal(got, want) else "VALUES DIFFER"


def one_case(
    rtopk: Any,
    xs: List[torch.Tensor],
    n: int,
    m: int,
    k: int,
    sorted_: bool,
    group: str,
    args: argparse.Namespace,
) -> Dict[str, Any]:
    row: Dict[str, Any] = dict(group=group, n=n, m=m, k=k, sorted=sorted_, buffers=len(xs))
    row["check"] = check(rtopk, xs[0], k, sorted_)
    ours = [lambda x=x: rtopk.topk(x, k, sorted=sorted_) for x in xs]
    theirs = [lambda x=x: torch.topk(x, k, sorted=sorted_) for x in xs]
    row["rtopk_gpu_ms"] = median_gpu_ms(ours, args.reps)
    row["torch_gpu_ms"] = median_gpu_ms(theirs, args.reps)
    calls = max(20, min(args.calls, int(2e5 / max(row["torch_gpu_ms"] * 1e3, 1.0))))
    for name, c in (("rtopk", ours), ("torch", theirs)):
        for key, v in host_us(c, calls).items():
            row[f"{name}_{key}"] = v
    row["calls"] = calls
    row["speedup_gpu"] = row["torch_gpu_ms"] / row["rtopk_gpu_ms"]
    row["speedup_wall"] = row["torch_wall_us"] / row["rtopk_wall_us"]
    return row


def overhead(rtopk: Any, args: argparse.Namespace, device: str) -> List[Dict[str, Any]]:
    """Host microseconds per call of each path on a launch-bound shape (1 x 256, k = 16): the
    native call alone (outputs preallocated on CUDA; the numpy rows on the CPU), then every
    Python path on top of it."""
    import numpy as np
    from rtopk import ops

    k = 16
    x = torch.randn(1, 256, device=device)
    xg = x.clone().requires_grad_()
    op = torch.ops.rtopk.topk.default
    options = ops.op_options(sorted=False)
    if device == "cuda":
        values = torch.empty(1, k, device=device)
        indices = torch.empty(1, k, dtype=torch.int64, device=device)
        dev = x.device.index or 0
        request = rtopk._request.native(
            rtopk._request.ask(k, True, False, "auto", None, 0.0, False, None),
            "float32",
            f"cuda:{dev}",
        )
        pointers = (x.data_ptr(), values.data_ptr(), indices.data_ptr(), 0, 0, 0, 0, 0)

        def native() -> None:
            rtopk._native.cuda_launch(request, 1, 256, pointers, ops.current_stream(dev))

        native_name = "native launch only (preallocated outputs)"
    else:
        rows = x.numpy()
        cpu_request = rtopk._request.native(
            rtopk._request.ask(k, True, False, "auto", None, 0.0, False, None), "float32", "cpu"
        )

        def native() -> None:
            rtopk._native.select(rows, cpu_request)

        native_name = "native select only (numpy rows)"
    paths: List[tuple] = [
        (native_name, native),
        ("rtopk.topk eager (direct path)", lambda: rtopk.topk(x, k, sorted=False)),
        (
            "torch.ops.rtopk.topk (custom-op dispatcher)",
            lambda: op(x, k, -1, options, None, None, None),
        ),
        (
            "rtopk.topk, input requires grad (op + autograd)",
            lambda: rtopk.topk(xg, k, sorted=False),
        ),
        ("torch.topk", lambda: torch.topk(x, k, sorted=False)),
        (
            "torch.empty x2 (the outputs' allocation)",
            lambda: (
                torch.empty(1, k, device=device),
                torch.empty(1, k, dtype=torch.int64, device=device),
            ),
        ),
    ]
    if device == "cpu":
        a = np.asarray(x)
        paths.insert(2, ("rtopk.topk on the numpy array", lambda: rtopk.topk(a, k, sorted=False)))
    out = []
    for name, fn in paths:
        try:
            r = host_us([fn], args.calls * 10, device)
            out.append(dict(path=name, **r))
        except Exception as e:
            out.append(dict(path=name, error=f"{type(e).__name__}: {e}"))
    base = out[0].get("host_us")
    for o in out:
        if base is not None and "host_us" in o:
            o["added_host_us"] = o["host_us"] - base
    return out


def print_overhead(rows: List[Dict[str, Any]], device: str) -> None:
    print(f"\nHost time per call on 1 x 256, k = 16, {device} (launch-bound):")
    for o in rows:
        if "error" in o:
            print(f"  {o.get('path', '?'):<52} ERROR {o['error']}")
        else:
            added = o.get("added_host_us")
            extra = f"  (+{added:.2f} us over the first line)" if added is not None else ""
            print(
                f"  {o['path']:<52} host {o['host_us']:7.2f} us  wall {o['wall_us']:7.2f} us{extra}"
            )
    sys.stdout.flush()


def cases(quick: bool) -> List[tuple]:
    grid_n = GRID_N[:2] if quick else GRID_N
    out = [("rtopk-grid", n, m, k, False) for n in grid_n for m in GRID_M for k in GRID_K]
    for n in SMALL_N:
        for m in SMALL_M:
            for k in SMALL_K:
                for s in (False, True):
                    out.append(("small", n, m, k, s))
    return out


def table(rows: List[Dict[str, Any]]) -> str:
    head = (
        f"{'group':<10} {'N':>8} {'M':>6} {'k':>4} {'sort':>4} | {'rtopk ms':>9} "
        f"{'torch ms':>9} {'x':>6} | {'rtopk host':>10} {'torch host':>10} "
        f"{'rtopk wall':>10} {'torch wall':>10} {'x':>6} | check"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        if "error" in r:
            lines.append(
                f"{r['group']:<10} {r['n']:>8} {r['m']:>6} {r['k']:>4} "
                f"{str(r['sorted'])[0]:>4} | ERROR {r['error']}"
            )
            continue
        lines.append(
            f"{r['group']:<10} {r['n']:>8} {r['m']:>6} {r['k']:>4} {str(r['sorted'])[0]:>4} | "
            f"{r['rtopk_gpu_ms']:>9.4f} {r['torch_gpu_ms']:>9.4f} {r['speedup_gpu']:>6.2f} | "
            f"{r['rtopk_host_us']:>10.2f} {r['torch_host_us']:>10.2f} "
            f"{r['rtopk_wall_us']:>10.2f} {r['torch_wall_us']:>10.2f} "
            f"{r['speedup_wall']:>6.2f} | {r['check']}"
        )
    return "\n".join(lines)


def geomean(xs: List[float]) -> Optional[float]:
    xs = [x for x in xs if x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def device_env(rtopk: Any, **extra: Any) -> Dict[str, Any]:
    """The run's environment (date, command, device, L2 bytes, versions), then ``extra``."""
    props = torch.cuda.get_device_properties(0)
    return dict(
        date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        command=" ".join([sys.executable, *sys.argv]),
        device=props.name,
        l2_bytes=int(getattr(props, "L2_cache_size", 50 << 20)),
        torch=torch.__version__,
        cuda=torch.version.cuda,
        rtopk=rtopk.__version__,
        python=platform.python_version(),
        **extra,
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="results/python", help="output directory")
    ap.add_argument("--reps", type=int, default=30, help="CUDA-event calls per case (median)")
    ap.add_argument("--calls", type=int, default=300, help="back-to-back calls for host time")
    ap.add_argument("--quick", action="store_true", help="N <= 2^16 on the grid")
    ap.add_argument(
        "--device",
        choices=["cuda", "cpu"],
        default="cuda",
        help="cpu: only the Python paths' overhead on CPU tensors",
    )
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    import rtopk

    if args.device == "cpu":
        rows = overhead(rtopk, args, "cpu")
        print_overhead(rows, "cpu")
        with open(os.path.join(args.out, "torch_op_cpu_overhead.json"), "w") as f:
            json.dump(
                dict(
                    torch=torch.__version__,
                    rtopk=rtopk.__version__,
                    command=" ".join([sys.executable, *sys.argv]),
                    overhead=rows,
                ),
                f,
                indent=1,
            )
        return 0

    env = device_env(
        rtopk, distribution="standard normal (torch.randn on the device), seeded per shape"
    )
    l2 = env["l2_bytes"]
    print(json.dumps(env, indent=1), flush=True)
    result: Dict[str, Any] = dict(env=env, overhead=[], cases=[])
    try:
        result["overhead"] = overhead(rtopk, args, "cuda")
    except Exception as e:
        traceback.print_exc()
        result["overhead"] = [dict(error=f"{type(e).__name__}: {e}")]
    print_overhead(result["overhead"], "cuda")
    current = None
    xs: List[torch.Tensor] = []
    for group, n, m, k, sorted_ in cases(args.quick):
        try:
            if current != (n, m):
                xs = []
                torch.cuda.empty_cache()
                xs = buffers(n, m, l2, seed=n * 1_000_003 + m)
                current = (n, m)
            row = one_case(rtopk, xs, n, m, k, sorted_, group, args)
        except Exception as e:
            print(
                f"case {group} n={n} m={m} k={k} sorted={sorted_}: {type(e).__name__}: {e}",
                file=sys.stderr,
                flush=True,
            )
            row = dict(group=group, n=n, m=m, k=k, sorted=sorted_, error=f"{type(e).__name__}: {e}")
            xs, current = [], None
            torch.cuda.empty_cache()
        result["cases"].append(row)
        print(table([row]).splitlines()[-1], flush=True)
        with open(os.path.join(args.out, "torch_op.json"), "w") as f:
            json.dump(result, f, indent=1)
    ok = [r for r in result["cases"] if "error" not in r]
    grid = [r for r in ok if r["group"] == "rtopk-grid"]
    summary = dict(
        cases=len(result["cases"]),
        errors=len(result["cases"]) - len(ok),
        check_failures=sum(r["check"] != "ok" for r in ok),
        grid_geomean_speedup_gpu=geomean([r["speedup_gpu"] for r in grid]),
        grid_geomean_speedup_wall=geomean([r["speedup_wall"] for r in grid]),
    )
    result["summary"] = summary
    with open(os.path.join(args.out, "torch_op.json"), "w") as f:
        json.dump(result, f, indent=1)
    print()
    print(table(result["cases"]))
    print(json.dumps(summary, indent=1))
    return 0 if summary["errors"] == 0 and summary["check_failures"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
