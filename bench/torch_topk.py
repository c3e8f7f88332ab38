#!/usr/bin/env python3
"""Time torch.topk on the shapes of an `rtopk bench cuda --json` run, on the same device.

Same method as the Rust side: standard-normal inputs, enough input buffers that cycling
through them evicts L2 (4x the L2 size), 2 warm-up calls, then `--reps` calls each between
CUDA events, median reported. Ahead of each start event the GPU spins (torch.cuda._sleep)
so that the call is queued before the GPU reaches the event: the figure is the GPU's time,
without the host's dispatch latency (a call whose start event had already passed is timed
again with a longer spin). `--idle-start` times from an idle GPU instead (earlier records).
sorted=False is the fair comparison with RTop-K (whose output is in index order);
sorted=True is reported too.

    python3 bench/torch_topk.py RTOPK.json [--idle-start] > TORCH.json
"""

import argparse
import json
import math
import sys

import torch

# GPU clock cycles of the spin ahead of a start event (about 1 ms, then 10 ms on a retry).
SPIN_CYCLES = (2_000_000, 20_000_000)


def time_once(x, k, sorted_, idle_start):
    """Milliseconds of one torch.topk call between CUDA events."""
    for cycles in SPIN_CYCLES:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        if idle_start:
            torch.cuda.synchronize()
        else:
            torch.cuda._sleep(cycles)
        start.record()
        torch.topk(x, k, dim=1, largest=True, sorted=sorted_)
        queued = not start.query()
        end.record()
        end.synchronize()
        if idle_start or queued:
            return start.elapsed_time(end)
    raise RuntimeError(
        "torch.topk could not be queued behind the spin; timing would include the host"
    )


def time_topk(n, m, k, sorted_, reps, l2, idle_start):
    nbytes = max(n * m * 4, 1)
    count = min(max(math.ceil(4 * l2 / nbytes), 1), 32)
    gen = torch.Generator(device="cuda").manual_seed(n * 1_000_003 + m)
    bufs = [torch.randn(n, m, device="cuda", generator=gen) for _ in range(count)]
    times = []
    for r in range(reps + 2):
        ms = time_once(bufs[r % count], k, sorted_, idle_start)
        if r >= 2:
            times.append(ms)
    del bufs
    times.sort()
    return times[len(times) // 2], count


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("rtopk_json")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument(
        "--idle-start",
        action="store_true",
        help="time from an idle GPU, the host's dispatch latency included",
    )
    args = ap.parse_args()
    with open(args.rtopk_json) as f:
        shapes = sorted({(r["n"], r["m"], r["k"]) for r in json.load(f)})
    props = torch.cuda.get_device_properties(0)
    l2 = props.L2_cache_size
    print(f"torch {torch.__version__} on {props.name}, L2 {l2 >> 20} MiB", file=sys.stderr)
    rows = []
    for n, m, k in shapes:
        for sorted_ in (False, True):
            ms, count = time_topk(n, m, k, sorted_, args.reps, l2, args.idle_start)
            rows.append(
                dict(
                    device=props.name,
                    torch=torch.__version__,
                    n=n,
                    m=m,
                    k=k,
                    sorted=sorted_,
                    median_ms=ms,
                    reps=args.reps,
                    input_buffers=count,
                    timing="idle-start" if args.idle_start else "queued",
                )
            )
            print(f"torch.topk n={n} m={m} k={k} sorted={sorted_}: {ms:.4f} ms", file=sys.stderr)
    json.dump(rows, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
