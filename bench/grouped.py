#!/usr/bin/env python3
"""Time rtopk.grouped_topk (docs/contract.md §8) on CUDA tensors against the eager PyTorch
formulation of DeepSeek-V3's group-limited router, on one GPU.

The shape is DeepSeek-V3's: 256 experts in 8 groups, the 4 best groups by the sum of their two
best scores ("sum2"), the 8 best experts among them, sorted; N tokens in {1, 4, 16, 64, 256,
4096, 65536}, float32 and bfloat16 scores (standard normal). The torch side is the usual
formulation, written here:

    group_scores = x.view(N, 8, 32).float().topk(2, dim=-1).values.sum(-1)
    group_idx = group_scores.topk(4, dim=-1).indices
    mask = zeros(N, 8, bool).scatter_(1, group_idx, True)     # kept groups
    masked = x.masked_fill(~mask.repeat_interleave(32, 1), -inf)
    values, indices = masked.topk(8, dim=-1, sorted=True)

First both are checked to give the same indices (and values) on every row without a tie that
could make the answer depend on a tie rule (random normal scores: in float32 all rows, in
bfloat16 most of them). Then, per N and dtype, medians of --reps (>= 200) repetitions:

* graph: GPU time per call inside a CUDA graph — 10 calls captured in one graph, each replay
  queued behind a GPU spin (torch.cuda._sleep) and timed with CUDA events, divided by 10: the
  kernels without host overhead (as in a model's captured forward pass).
* eager: time per call of plain eager calls, back to back — CUDA events around 10 calls from
  an idle queue, divided by 10: the host's overhead and the GPU's time, whichever is longer.
* host: the CPU time of one eager call (time.perf_counter_ns), as bench/eager_overhead.py.

The input stays resident in L2 where it fits (as in a model, where the router's scores were
just written). Prints a table, and with --out writes one JSON line per (dtype, N): device,
torch and rtopk versions, date, shape, dtype, N, medians in microseconds.

    python3 bench/grouped.py [--quick] [--reps 500] [--out grouped.jsonl]
"""

import argparse
import datetime
import json
import statistics
import sys
import time

import rtopk
import torch

from spin_timing import spin_timed_ms

EXPERTS, GROUPS, TOP_GROUPS, K = 256, 8, 4, 8
TOKENS = (1, 4, 16, 64, 256, 4096, 65536)
QUICK_TOKENS = (1, 64, 4096)
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}


def torch_grouped(x):
    """DeepSeek-V3's router in eager PyTorch: (values, int64 indices), sorted."""
    n = x.shape[0]
    size = EXPERTS // GROUPS
    group_scores = x.view(n, GROUPS, size).float().topk(2, dim=-1).values.sum(-1)
    group_idx = group_scores.topk(TOP_GROUPS, dim=-1).indices
    mask = torch.zeros(n, GROUPS, dtype=torch.bool, device=x.device).scatter_(1, group_idx, True)
    masked = x.masked_fill(~mask.repeat_interleave(size, dim=1), float("-inf"))
    return masked.topk(K, dim=-1, sorted=True)


def rtopk_grouped(x):
    return rtopk.grouped_topk(x, K, GROUPS, TOP_GROUPS, group_score="sum2")


def untied_rows(x):
    """Rows whose answer needs no tie rule: the kept groups' boundary strict, and the k + 1
    best kept experts strictly decreasing."""
    n = x.shape[0]
    size = EXPERTS // GROUPS
    scores = x.view(n, GROUPS, size).float().topk(2, dim=-1).values.sum(-1)
    ranked = scores.sort(dim=-1, descending=True).values
    groups_ok = ranked[:, TOP_GROUPS - 1] > ranked[:, TOP_GROUPS]
    mask = torch.zeros_like(scores, dtype=torch.bool)
    mask.scatter_(1, scores.topk(TOP_GROUPS, dim=-1).indices, True)
    masked = x.float().masked_fill(~mask.repeat_interleave(size, dim=1), float("-inf"))
    best = masked.topk(K + 1, dim=-1).values
    return groups_ok & (best[:, :-1] > best[:, 1:]).all(dim=-1)


def check(dtype):
    """Both give the same answer on untied rows of random normal scores; returns the rows
    compared and the rows in all."""
    gen = torch.Generator(device="cuda").manual_seed(1)
    x = torch.randn(65536, EXPERTS, device="cuda", generator=gen).to(dtype)
    v_ref, i_ref = torch_grouped(x)
    v, i = rtopk_grouped(x)
    rows = untied_rows(x)
    same = (i == i_ref).all(dim=-1) & (v == v_ref).all(dim=-1)
    bad = int((rows & ~same).sum())
    if bad:
        raise SystemExit(f"{dtype}: rtopk and torch differ on {bad} untied rows")
    return int(rows.sum()), x.shape[0]


# Calls per timed repetition: per graph replay, and per batch of eager calls.
CALLS = 10


def back_to_back(fn):
    """Milliseconds of ``fn()`` between CUDA events from an idle queue: the host's time and the
    GPU's, whichever is longer."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end)


def host_ms(fn):
    """Milliseconds of CPU time of one call of ``fn`` (the queue drained first, so that a full
    launch queue never blocks it)."""
    torch.cuda.synchronize()
    t = time.perf_counter_ns()
    fn()
    return (time.perf_counter_ns() - t) / 1e6


def captured(fn, x):
    """A CUDA graph of CALLS calls of ``fn`` on ``x`` (warmed up on a side stream first)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn(x)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(CALLS):
            fn(x)
    torch.cuda.synchronize()
    return graph


def median_us(timer, fn, reps, warmup, calls=1):
    """Median microseconds per call of ``timer(fn)``, ``fn`` making ``calls`` calls."""
    times = [timer(fn) for _ in range(warmup + reps)][warmup:]
    return 1000.0 * statistics.median(times) / calls


def measure(name, n, reps, warmup):
    gen = torch.Generator(device="cuda").manual_seed(n)
    x = torch.randn(n, EXPERTS, device="cuda", generator=gen).to(DTYPES[name])
    row = {}
    for label, fn in (("rtopk", rtopk_grouped), ("torch", torch_grouped)):
        graph = captured(fn, x)
        row[f"{label}_graph_us"] = median_us(spin_timed_ms, graph.replay, reps, warmup, CALLS)
        del graph

        def batch(fn=fn):
            for _ in range(CALLS):
                fn(x)

        row[f"{label}_eager_us"] = median_us(back_to_back, batch, reps, warmup, CALLS)
        row[f"{label}_host_us"] = median_us(host_ms, lambda fn=fn: fn(x), reps, warmup)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=500, help="repetitions per median (>= 200)")
    ap.add_argument("--quick", action="store_true", help=f"N in {QUICK_TOKENS} only, 200 reps")
    ap.add_argument("--out", help="append one JSON line per (dtype, N) to this file")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("no CUDA device")
    reps = 200 if args.quick else max(args.reps, 200)
    tokens = QUICK_TOKENS if args.quick else TOKENS
    props = torch.cuda.get_device_properties(0)
    env = dict(
        device=props.name,
        torch=torch.__version__,
        rtopk=rtopk.__version__,
        date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        shape=dict(experts=EXPERTS, groups=GROUPS, top_groups=TOP_GROUPS, k=K, score="sum2"),
        reps=reps,
        calls_per_rep=dict(graph=CALLS, eager=CALLS, host=1),
    )
    print(f"rtopk {rtopk.__version__}, torch {torch.__version__} on {props.name}", file=sys.stderr)
    for name, dtype in DTYPES.items():
        compared, total = check(dtype)
        print(f"{name}: same answer on all {compared} untied rows of {total}", file=sys.stderr)
    out = open(args.out, "a") if args.out else None
    header = (
        f"{'dtype':<9} {'N':>6} | {'graph rtopk':>11} {'graph torch':>11} {'x':>5} |"
        f" {'eager rtopk':>11} {'eager torch':>11} {'x':>5} | {'host rtopk':>10} {'host torch':>10}"
    )
    print(header + "   (µs per call, medians)")
    print("-" * len(header))
    for name in DTYPES:
        for n in tokens:
            row = measure(name, n, reps, warmup=20)
            g = row["torch_graph_us"] / row["rtopk_graph_us"]
            e = row["torch_eager_us"] / row["rtopk_eager_us"]
            print(
                f"{name:<9} {n:>6} | {row['rtopk_graph_us']:>11.2f} {row['torch_graph_us']:>11.2f}"
                f" {g:>5.1f} | {row['rtopk_eager_us']:>11.2f} {row['torch_eager_us']:>11.2f}"
                f" {e:>5.1f} | {row['rtopk_host_us']:>10.2f} {row['torch_host_us']:>10.2f}",
                flush=True,
            )
            if out is not None:
                out.write(json.dumps(dict(env, dtype=name, n=n, **row)) + "\n")
                out.flush()
    if out is not None:
        out.close()


if __name__ == "__main__":
    main()
