"""Top-k across GPUs through torch.distributed (NCCL): time on 1, 2 (and 4) GPUs and the share
of the time the communication takes, for rows sharded across ranks and for one vector split
across ranks (rtopk.distributed).

Run one process per GPU with torchrun, once per world size, on a machine of several GPUs
(NVLink multicast stays off: NCCL_NVLS_ENABLE=0, as the device's environment sets it):

    for g in 1 2 4; do
        NCCL_NVLS_ENABLE=0 torchrun --standalone --nproc-per-node $g bench/distributed_topk.py \
            --out OUT/distributed_$g.json
    done

Cases: rows sharded, N = 2^22 x M = 256, k = 32 (each rank holds N / world rows);
one vector split, N = 1 x M = 2^31 float32 (8 GiB in all; each rank holds M / world), k = 64
and 1024. Timing: CUDA events on every rank around each call after warm-up, a barrier
before each call, the median of the slowest rank's time per repetition; the communication's
share is the time of the same collectives (metadata, sizes, candidates) run alone on tensors of
the same shapes, over the whole call's time. Standard-normal data generated on each GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from typing import Any, Callable, Dict, List

import torch
import torch.distributed as dist

import rtopk
import rtopk.distributed as rd


def timed(fn: Callable[[], Any], reps: int) -> List[float]:
    """Milliseconds of each call on this rank (CUDA events), after two warm-up calls, the
    slowest rank's time per repetition (all-reduce max)."""
    for _ in range(2):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(reps):
        dist.barrier()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        ms = torch.tensor([start.elapsed_time(end)], device="cuda")
        dist.all_reduce(ms, op=dist.ReduceOp.MAX)
        out.append(float(ms.item()))
    return out


def comm_only(k: int, lead: int, world: int) -> Callable[[], None]:
    """The collectives topk_split_rows runs, alone: metadata, sizes, candidates."""
    meta = torch.zeros(14, dtype=torch.int64, device="cuda")
    size = torch.zeros(1, dtype=torch.int64, device="cuda")
    vals = torch.zeros(lead, k, device="cuda")
    idxs = torch.zeros(lead, k, dtype=torch.int64, device="cuda")

    def run() -> None:
        dist.all_gather([torch.empty_like(meta) for _ in range(world)], meta)
        dist.all_gather([torch.empty_like(size) for _ in range(world)], size)
        dist.all_gather([torch.empty_like(vals) for _ in range(world)], vals)
        dist.all_gather([torch.empty_like(idxs) for _ in range(world)], idxs)

    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--vector-log2", type=int, default=31, help="log2 of the split vector's M")
    args = ap.parse_args()
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    g = torch.Generator(device="cuda").manual_seed(1234 + rank)
    rows: List[Dict[str, Any]] = []

    n, m, k = 1 << 22, 256, 32
    x = torch.randn(n // world, m, device="cuda", generator=g)
    t = timed(lambda: rd.topk_sharded_rows(x, k, sorted=False, timeout=None), args.reps)
    rows.append({"case": "sharded rows", "n": n, "m": m, "k": k, "ms": statistics.median(t)})
    del x

    m = 1 << args.vector_log2
    shard = torch.randn(1, m // world, device="cuda", generator=g)
    for k in (64, 1024):
        t = timed(lambda: rd.topk_split_rows(shard, k, sorted=False, timeout=None), args.reps)
        c = timed(comm_only(k, 1, world), args.reps) if world > 1 else [0.0]
        ms = statistics.median(t)
        rows.append(
            {
                "case": "split vector",
                "n": 1,
                "m": m,
                "k": k,
                "ms": ms,
                "comm_ms": statistics.median(c),
                "comm_share": statistics.median(c) / ms if ms else None,
            }
        )
    if rank == 0:
        meta = {
            "world": world,
            "device": torch.cuda.get_device_name(0),
            "torch": torch.__version__,
            "rtopk": rtopk.__version__,
            "date_utc": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()),
            "nccl_nvls_enable": os.environ.get("NCCL_NVLS_ENABLE"),
            "rows": rows,
        }
        with open(args.out, "w") as f:
            json.dump(meta, f, indent=1)
        for r in rows:
            print(json.dumps(r))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
