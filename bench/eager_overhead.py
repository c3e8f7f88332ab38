"""Eager host time per call of rtopk.topk against torch.topk on CUDA tensors, and where the
microseconds go (docs/performance.md, "Host time per call").

Host time is the CPU time of one Python-level call, measured call by call with
``time.perf_counter_ns`` in batches of ``--batch`` calls (synchronised between batches, so the
launch queue never fills and blocks a call); each figure is the median over every call of a
round, and the median of ``--rounds`` rounds that alternate the calls compared. The
components time each step of rtopk's eager CUDA path on its own, the same way.

    python3 bench/eager_overhead.py --json out.json [--ragged]
"""

import argparse
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

import rtopk
import torch


def host_us(fn: Callable[[], Any], calls: int, batch: int) -> float:
    """Median host microseconds of one call of ``fn`` (after a warm-up batch)."""
    for _ in range(batch):
        fn()
    torch.cuda.synchronize()
    times: list[int] = []
    done = 0
    while done < calls:
        for _ in range(min(batch, calls - done)):
            t = time.perf_counter_ns()
            fn()
            times.append(time.perf_counter_ns() - t)
        done += batch
        torch.cuda.synchronize()
    return statistics.median(times) / 1e3


def components(x: torch.Tensor, k: int, calls: int, batch: int) -> dict[str, float]:
    """The eager path's steps, each timed alone (where this build exposes them)."""
    from rtopk import _native, ops
    from rtopk._request import ask, native

    out: dict[str, float] = {}
    n, m = x.shape
    a = ask(k, True, False, "auto", None, 0.0, False, None)
    out["ask"] = host_us(lambda: ask(k, True, False, "auto", None, 0.0, False, None), calls, batch)
    element = ops._element(x)
    out["native request (cached)"] = host_us(lambda: native(a, element, "cuda"), calls, batch)
    out["new_empty values"] = host_us(lambda: x.new_empty((n, k)), calls, batch)
    out["new_empty indices"] = host_us(lambda: x.new_empty((n, k), dtype=torch.int64), calls, batch)
    out["current_stream"] = host_us(lambda: ops.current_stream(0), calls, batch)
    try:
        from rtopk import _eager

        stream = torch._C._cuda_getCurrentRawStream(0)
        out["slab outputs (both)"] = host_us(
            lambda: _eager._outputs(x, (n, k), n * k, 0, stream), calls, batch
        )
    except AttributeError:  # a build before the slabs
        pass
    req = native(a, element, "cuda")
    v = x.new_empty((n, k))
    i = x.new_empty((n, k), dtype=torch.int64)
    ptrs = (x.data_ptr(), v.data_ptr(), i.data_ptr(), 0, 0, 0, 0, 0)
    s = ops.current_stream(0)
    out["native launch (outputs given)"] = host_us(
        lambda: _native.cuda_launch(req, n, m, ptrs, s), calls, batch
    )
    out["ops.cuda_impl"] = host_us(lambda: ops.cuda_impl(x, -1, a), calls, batch)
    return out


def compared_calls(x: torch.Tensor, k: int) -> dict[str, Callable[[], Any]]:
    """The four calls compared: torch.topk and rtopk.topk, sorted (both defaults) and not."""
    return {
        "torch.topk": lambda: torch.topk(x, k),
        "rtopk.topk": lambda: rtopk.topk(x, k),
        "torch.topk sorted=False": lambda: torch.topk(x, k, sorted=False),
        "rtopk.topk sorted=False": lambda: rtopk.topk(x, k, sorted=False),
    }


def ragged_calls(n: int, m: int, k: int) -> dict[str, Callable[[], Any]]:
    """Rows of their own length with a k per row, both GPU tensors, as torch makes integers
    (int64) and as int32 (also with a hint per row and the thresholds asked for, as a decode
    loop calls); the int64 ones also converted by torch's clamp and cast first (what the
    package did before its own conversion); torch.topk of the whole rows beside them."""
    g = torch.Generator(device="cuda").manual_seed(3)
    x = torch.randn(n, m, device="cuda", generator=g)
    lengths = torch.randint(1, m + 1, (n,), device="cuda", generator=g)
    ks = torch.randint(1, k + 1, (n,), device="cuda", generator=g)
    l32, k32 = lengths.to(torch.int32), ks.to(torch.int32)
    int64 = rtopk.topk(x, ks, lengths=lengths, width=k)
    int32 = rtopk.topk(x, k32, lengths=l32, width=k)
    assert torch.equal(int64.indices, int32.indices) and torch.equal(int64.values, int32.values)

    def torch_converted() -> Any:
        lc = lengths.clamp(0, m).to(torch.int32)
        kc = ks.clamp(0, k).to(torch.int32)
        return rtopk.topk(x, kc, lengths=lc, width=k)

    hint = int32.values[:, 0].contiguous()  # any float32 guess: the answer does not depend on it

    return {
        "torch.topk (whole rows, k = width)": lambda: torch.topk(x, k),
        "rtopk.topk int32, hinted, thresholds": lambda: rtopk.topk(
            x, k32, lengths=l32, width=k, hint=hint, return_threshold=True
        ),
        "rtopk.topk int64 per-row tensors": lambda: rtopk.topk(x, ks, lengths=lengths, width=k),
        "rtopk.topk int32 per-row tensors": lambda: rtopk.topk(x, k32, lengths=l32, width=k),
        "torch clamp + int32, then rtopk.topk": torch_converted,
    }


def timed_rounds(
    calls: dict[str, Callable[[], Any]], args: argparse.Namespace, row: dict[str, Any]
) -> None:
    """Each call's median host time over ``args.rounds`` rounds that alternate the calls (a
    drift of the host's speed reaches them alike), into ``row``."""
    rounds: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(args.rounds):
        for name, fn in calls.items():
            rounds[name].append(host_us(fn, args.calls, args.batch))
    for name in calls:
        row[name] = statistics.median(rounds[name])
        row[name + " rounds"] = rounds[name]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--calls", type=int, default=5000)
    ap.add_argument("--batch", type=int, default=250)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", default=None)
    ap.add_argument(
        "--ragged",
        action="store_true",
        help="also rows of their own length with a k per row (int64 and int32 GPU tensors)",
    )
    args = ap.parse_args()
    rows = []
    for n, m, k in [(1, 256, 8), (64, 128256, 50)]:
        for dtype in [torch.float32, torch.bfloat16]:
            x = torch.randn(n, m, device="cuda").to(dtype)
            assert torch.equal(
                torch.topk(x, k, sorted=True).values,
                rtopk.topk(x, k, sorted=True).values,
            )
            row: dict[str, Any] = {"n": n, "m": m, "k": k, "dtype": str(dtype)[6:]}
            timed_rounds(compared_calls(x, k), args, row)
            try:
                row["components"] = components(x, k, args.calls, args.batch)
            except Exception as e:  # an older build without one of the internals
                row["components"] = {"error": repr(e)}
            rows.append(row)
            print(json.dumps(row))
    # a sampler with a k per request (16 vocabulary rows, k <= 50), an indexer's batch
    for n, m, k in [(16, 128256, 50), (64, 32768, 2048)] if args.ragged else []:
        row = {"n": n, "m": m, "k": k, "dtype": "float32", "ragged": True}
        timed_rounds(ragged_calls(n, m, k), args, row)
        rows.append(row)
        print(json.dumps(row))
    record = {
        "device": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "method": "median host microseconds per call, call by call, batches synchronised",
        "rows": rows,
    }
    if args.json:
        with open(args.json, "w") as f:
            json.dump(record, f, indent=1)


if __name__ == "__main__":
    main()
