"""Host time of a hot ``rtopk.distributed.topk_split_rows`` call, piece by piece.

An eager split-row call is host-bound when its shard is small: the host's Python and launches
set the pace of a loop of calls, not the GPUs (docs/distributed.md). This script times, on
each rank's host, the whole hot call and each thing it does (the hot key and its lookup, the
local selection's launch, the all-gather, the merge graph's replay, the answer's clone and
views), beside ``rtopk.topk`` and ``torch.topk`` on the shard, so that the costly pieces are
named. Run it with torchrun, NCCL, one process per GPU (one process is enough: the host's
pieces do not depend on the world size, the all-gather's a little):

    NCCL_NVLS_ENABLE=0 torchrun --standalone --nproc-per-node 1 results/cuda/2026-11-30-hint-windows-h200/split_host.py --out host.json

Method: a small shard (``--m``, default 2^16 values a rank, so that the GPU never holds the host
back), ``--calls`` calls of each piece back to back after a warm-up, the host's
``perf_counter_ns`` around the loop divided by the count (the queue never fills: each call's
GPU work is a few microseconds), the median of ``--reps`` such loops; rank 0 prints a table
and writes the JSON. The answer of the whole call is checked against ``rtopk.topk`` on the
gathered rows first.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from typing import Any, Callable, Dict, List

import rtopk
import rtopk.distributed as rd
import torch
import torch.distributed as dist
from rtopk import _native  # type: ignore[attr-defined]


def per_call_us(fn: Callable[[], Any], calls: int, reps: int) -> float:
    """Median over ``reps`` loops of ``calls`` calls of the host's time per call, in µs."""
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    times: List[float] = []
    for _ in range(reps):
        start = time.perf_counter_ns()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter_ns() - start) / calls / 1e3)
        torch.cuda.synchronize()
    return statistics.median(times)


def pieces(x: torch.Tensor, k: int) -> Dict[str, Callable[[], Any]]:
    """The hot call and its pieces, as topk_split_rows' hot path runs them."""
    rd.topk_split_rows(x, k, sorted=False)
    key = rd._hot_key(x, k, -1, True, False, None, "once", {})
    hot = rd._HOT[key]
    replay = hot.replay
    stream = key[-2]
    m = x.shape[-1]
    values_at, indices_at = replay.send_pointers
    pointers = (x.data_ptr(), values_at, indices_at, 0, 0, 0, 0, 0)
    gather = rd._fast().all_gather
    rows = x.numel() // m

    def launch() -> None:
        _native.cuda_launch(replay.launch, rows, m, pointers, stream)

    def launch_gather() -> None:
        launch()
        gather(replay.every, replay.send, group=None)

    def launch_gather_replay() -> None:
        launch_gather()
        replay.graph.replay()

    def launch_gather_replay_clone() -> Any:
        launch_gather_replay()
        return rd._unpack(replay.out.clone(), replay.packed)

    return {
        "whole call": lambda: rd.topk_split_rows(x, k, sorted=False),
        "the hot path after the lookup": lambda: rd._run_replay(x, hot, stream),
        "launch, all-gather": launch_gather,
        "launch, all-gather, replay": launch_gather_replay,
        "launch, all-gather, replay, clone": launch_gather_replay_clone,
        "hot key and lookup": lambda: rd._HOT.get(
            rd._hot_key(x, k, -1, True, False, None, "once", {})
        ),
        "local launch (native)": launch,
        "all-gather": lambda: gather(replay.every, replay.send, group=None),
        "graph replay": lambda: replay.graph.replay(),
        "clone and views": lambda: rd._unpack(replay.out.clone(), replay.packed),
        "rtopk.topk on the shard": lambda: rtopk.topk(x, k, sorted=False),
        "torch.topk on the shard": lambda: torch.topk(x, k, sorted=False),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--m", type=int, default=1 << 16, help="values per rank (default 2^16)")
    ap.add_argument("--k", type=int, default=64)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", help="write the JSON record here (rank 0)")
    args = ap.parse_args()
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    rank, world = dist.get_rank(), dist.get_world_size()
    gen = torch.Generator(device="cuda").manual_seed(1000 + rank)
    x = torch.randn(1, args.m, device="cuda", generator=gen)
    got = rd.topk_split_rows(x, args.k, sorted=False)
    shards = [torch.empty_like(x) for _ in range(world)]
    dist.all_gather(shards, x)
    want = rtopk.topk(torch.cat(shards, dim=-1), args.k, sorted=False)
    identical = bool(
        torch.equal(got.values, want.values) and torch.equal(got.indices, want.indices)
    )
    rows = {name: per_call_us(fn, args.calls, args.reps) for name, fn in pieces(x, args.k).items()}
    worst = torch.tensor(list(rows.values()), dtype=torch.float64, device="cuda")
    dist.all_reduce(worst, op=dist.ReduceOp.MAX)
    if rank == 0:
        record = {
            "world": world,
            "m_per_rank": args.m,
            "k": args.k,
            "calls": args.calls,
            "reps": args.reps,
            "identical": identical,
            "host_us_slowest_rank": dict(zip(rows, worst.tolist())),
            "device": torch.cuda.get_device_name(),
            "torch": torch.__version__,
        }
        print(f"host µs per call, {world} rank(s), 1 x {args.m} per rank, k = {args.k}")
        for name, us in record["host_us_slowest_rank"].items():
            print(f"  {name:<26} {us:8.1f}")
        print(f"identical to rtopk.topk on the whole rows: {identical}")
        if args.out:
            with open(args.out, "w") as f:
                json.dump(record, f, indent=2)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
