"""Top-k across GPUs through torch.distributed (NCCL): rtopk.distributed against one GPU
holding the whole tensor, Dr. Top-k's multi-GPU scheme and torch.topk on gathered candidates.

Run one process per GPU with torchrun, once per world size, on a machine of several GPUs
(NVLink multicast off: NCCL_NVLS_ENABLE=0), then print the table:

    for g in 2 4; do
        NCCL_NVLS_ENABLE=0 torchrun --standalone --nproc-per-node $g bench/distributed.py \\
            --out OUT/distributed_$g.json
    done
    python bench/distributed.py --table OUT/distributed_2.json OUT/distributed_4.json

Cases. Split rows (every row split evenly along its length across the ranks): 1 x 2^26,
1 x 2^28, 1 x 2^30 and 16 x 2^24, float32 and bfloat16, k in {64, 256, 2048} (k = 256 only
for the smallest shapes). Sharded rows (a MaxK layer; each rank holds 1/world of the rows):
2^20 x {256, 1024, 4096} float32, k = 32. Inputs: standard normal, generated on each GPU from
a per-rank seed; rank 0 gathers the shards for the one-GPU baseline and the check, where the
whole tensor fits its memory.

Methods, split rows: ``rtopk`` — rtopk.distributed.topk_split_rows (agreement remembered: one
all-gather per call); ``rtopk_graph`` — the same call captured once in a CUDA graph and replayed
(the hot path reads nothing on the host, so a capture holds the whole call: the per-call Python
and launch cost go, the GPU work stays); ``torch_merge`` — rtopk.topk on each shard, the values
and global indices all-gathered (two collectives), torch.topk over the candidates; ``drtopk`` —
Dr. Top-k on several GPUs as paper 004 §5.4 describes it (Figure 16): each GPU selects its
sub-vector's top-k with the delegate scheme (β = 2 delegates per subrange, §4.3; delegate
filtering by the k-th delegate, Rule 2; subranges concatenated only when all their β delegates
pass, Rule 3; subrange size 2^α from Rule 4 with const = 3, §5.2), the local top-k's are
gathered to the primary GPU (rank 0) and it computes the final top-k — in torch ops (torch.topk
for each top-k), the answer on rank 0 only; ``one_gpu`` — rank 0 runs rtopk.topk on the whole
tensor while the others wait. Sharded rows: ``rtopk_local`` (topk_sharded_rows, no
communication), ``rtopk_gather0`` (gather_to=0), ``one_gpu``.

Timing, two figures per method, both CUDA events on every rank after warm-up and the median
over repetitions of the slowest rank's time (all-reduce MAX); the one-GPU baseline on rank 0.
``ms``, the headline — a steady loop: a barrier, then ``--calls`` calls back to back between
two events, divided by their number (a training or serving loop: the host queues the next call
while the GPUs run this one, so a call costs the larger of its host and its GPU time);
``latency_ms`` — one call after a barrier (nothing queued before it: the host's time and the
GPUs' add up). Every answer is checked against one GPU's rtopk.topk on
the whole tensor: ``identical`` (values bit for bit and indices, in the output order) for
rtopk; for the torch baselines, whose ties go to no particular index, ``same_values`` (the
values, sorted, bit for bit) and ``same_indices`` (the index sets). Each case runs in its own
try block (an error is recorded and the run moves on); ``--max-seconds`` bounds the run.

``--backend gloo`` runs the same code on CPU processes (tiny shapes with ``--small``): a
smoke test of the script, not a measurement.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

# --table needs neither torch nor rtopk
if "--table" not in sys.argv:
    import rtopk
    import rtopk.distributed as rd
    import torch
    import torch.distributed as dist

DTYPES = ("float32", "bfloat16")


def split_cases(small: bool) -> List[Dict[str, Any]]:
    """(n, m, dtype, k) of the split-row cases, smallest first."""
    if small:
        return [
            {"n": 1, "m": 1 << 14, "dtype": "float32", "k": 64},
            {"n": 3, "m": 1 << 12, "dtype": "bfloat16", "k": 256},
        ]
    out = []
    for n, log_m, ks in ((1, 26, (64, 256, 2048)), (16, 24, (64, 256, 2048))):
        for dtype in DTYPES:
            out += [{"n": n, "m": 1 << log_m, "dtype": dtype, "k": k} for k in ks]
    for log_m in (28, 30):
        for dtype in DTYPES:
            out += [{"n": 1, "m": 1 << log_m, "dtype": dtype, "k": k} for k in (64, 2048)]
    return out


def sharded_cases(small: bool) -> List[Dict[str, Any]]:
    if small:
        return [{"n": 1 << 10, "m": 256, "dtype": "float32", "k": 32}]
    return [{"n": 1 << 20, "m": m, "dtype": "float32", "k": 32} for m in (256, 1024, 4096)]


class Clock:
    """Milliseconds of a call on this rank: CUDA events on a GPU, the wall clock on a CPU."""

    def __init__(self, device: Any) -> None:
        self.cuda = device.type == "cuda"

    def time(self, fn: Callable[[], Any]) -> float:
        if not self.cuda:
            t = time.perf_counter()
            fn()
            return (time.perf_counter() - t) * 1e3
        start, end = (
            torch.cuda.Event(enable_timing=True),
            torch.cuda.Event(enable_timing=True),
        )
        start.record()
        fn()
        end.record()
        end.synchronize()
        return float(start.elapsed_time(end))


def timed_all(clock: Clock, fn: Callable[[], Any], reps: int, warmup: int, dev: Any) -> float:
    """Median over repetitions of the slowest rank's milliseconds (barrier before each)."""
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(reps):
        dist.barrier()
        ms = torch.tensor([clock.time(fn)], device=dev)
        dist.all_reduce(ms, op=dist.ReduceOp.MAX)
        out.append(float(ms.item()))
    return statistics.median(out)


def timed_rank0(clock: Clock, fn: Optional[Callable[[], Any]], reps: int, warmup: int, dev: Any):
    """Median milliseconds of ``fn`` on rank 0 (the others wait), on every rank."""
    ms = torch.zeros(1, device=dev)
    if fn is not None:
        for _ in range(warmup):
            fn()
        ms[0] = statistics.median(clock.time(fn) for _ in range(reps))
    dist.broadcast(ms, src=0)
    return float(ms.item())


def looped(fn: Callable[[], Any], calls: int) -> Callable[[], None]:
    """``calls`` calls of ``fn`` back to back."""

    def run() -> None:
        for _ in range(calls):
            fn()

    return run


def loop_all(clock: Clock, fn: Callable[[], Any], args: Any, dev: Any) -> float:
    """Milliseconds per call of ``fn`` in a steady loop of ``args.calls`` calls, the slowest
    rank's (median over ``args.loops`` loops, a barrier before each)."""
    return timed_all(clock, looped(fn, args.calls), args.loops, 1, dev) / args.calls


def loop_rank0(clock: Clock, fn: Optional[Callable[[], Any]], args: Any, dev: Any) -> float:
    """The same on rank 0 alone (the others wait), on every rank."""
    run = None if fn is None else looped(fn, args.calls)
    return timed_rank0(clock, run, args.loops, 1, dev) / args.calls


def timed_both(clock: Clock, fn: Callable[[], Any], args: Any, dev: Any) -> Tuple[float, float]:
    """(steady-loop ms per call, ms of one call after a barrier) of ``fn`` on every rank."""
    latency = timed_all(clock, fn, args.reps, args.warmup, dev)
    return loop_all(clock, fn, args, dev), latency


def bits(t: Any) -> Any:
    return t.contiguous().view(torch.int32 if t.element_size() == 4 else torch.int16)


def gather_whole(shard: Any, dim: int, fits: bool, dev: Any) -> Any:
    """The whole tensor on rank 0 (None elsewhere, or where it does not fit), from every
    rank's shard along ``dim`` (0 or -1), by one gather."""
    world, rank = dist.get_world_size(), dist.get_rank()
    if not fits:
        return None
    parts = None
    if rank == 0:
        buf = torch.empty((world, *shard.shape), dtype=shard.dtype, device=dev)
        parts = list(buf.unbind(0))
    dist.gather(shard.contiguous(), parts, dst=0)
    if rank != 0:
        return None
    if dim == 0:
        return buf.view(world * shard.shape[0], *shard.shape[1:])
    return buf.permute(1, 0, 2).reshape(shard.shape[0], world * shard.shape[1])


def fits_rank0(nbytes: int, dev: Any) -> bool:
    """Whether rank 0 can hold the whole tensor (twice: the gather buffer and a copy) and a
    selection's workspace; decided on rank 0, known on every rank."""
    ok = torch.zeros(1, device=dev)
    if dist.get_rank() == 0:
        free = torch.cuda.mem_get_info()[0] if dev.type == "cuda" else 1 << 62
        ok[0] = float(free > 2.5 * nbytes)
    dist.broadcast(ok, src=0)
    return bool(ok.item())


def torch_merge(shard: Any, k: int, offset: int) -> Tuple[Any, Any]:
    """rtopk.topk on the shard, values and global indices all-gathered (two collectives),
    torch.topk over the candidates."""
    world = dist.get_world_size()
    n = shard.shape[0]
    local = rtopk.topk(shard, k, -1, True, False)
    gi = local.indices + offset
    all_v = torch.empty(world * n * k, dtype=shard.dtype, device=shard.device)
    all_i = torch.empty(world * n * k, dtype=torch.int64, device=shard.device)
    dist.all_gather_into_tensor(all_v, local.values.reshape(-1))
    dist.all_gather_into_tensor(all_i, gi.reshape(-1))
    cand_v = all_v.view(world, n, k).permute(1, 0, 2).reshape(n, world * k)
    cand_i = all_i.view(world, n, k).permute(1, 0, 2).reshape(n, world * k)
    best = torch.topk(cand_v, k, dim=-1)
    return best.values, cand_i.gather(1, best.indices)


def delegate_topk(x: Any, k: int) -> Tuple[Any, Any]:
    """Dr. Top-k on one GPU (paper 004 §4–§5.2) in torch ops, the largest k of each row of
    ``x`` (finite values): β = 2 delegates per subrange of 2^α, α by Rule 4 (const = 3)."""
    n, length = x.shape
    alpha = round(0.5 * (3 + math.log2(length) - math.log2(k)))
    size = 1 << max(alpha, 1)
    if length % size or 2 * (length // size) < k:
        # the delegate vector would not hold k delegates (or the rows do not split evenly)
        return torch.topk(x, k, dim=-1)
    subs = length // size
    sub = x.view(n, subs, size)
    delegates = torch.topk(sub, 2, dim=-1)  # β = 2 delegates per subrange (§4.3)
    first = torch.topk(delegates.values.view(n, 2 * subs), k, dim=-1)  # the first top-k
    threshold = first.values[:, -1:]  # Rule 2: the k-th delegate bounds the k-th element
    second_delegate = delegates.values[..., 1]
    whole = second_delegate >= threshold  # Rule 3: subranges all of whose delegates pass
    # the concatenated vector's size (the paper counts it with atomics): a host read
    q = int(whole.sum(-1).max().item())
    ids = torch.topk(second_delegate, q, dim=-1).indices  # holds every qualified subrange
    chosen = sub.gather(1, ids[..., None].expand(n, q, size))
    passes = (second_delegate.gather(1, ids) >= threshold)[..., None]
    passes = passes & (chosen >= threshold[..., None])
    neg = torch.tensor(float("-inf"), dtype=x.dtype, device=x.device)
    cand_v = torch.where(passes, chosen, neg).view(n, q * size)
    cand_i = (ids[..., None] * size + torch.arange(size, device=x.device)).view(n, q * size)
    # a subrange whose second delegate fails still gives its first delegate (Rule 3)
    first_delegate = delegates.values[..., 0]
    alone = (first_delegate >= threshold) & ~whole
    starts = torch.arange(subs, device=x.device) * size
    cand_v = torch.cat([cand_v, torch.where(alone, first_delegate, neg)], dim=-1)
    cand_i = torch.cat([cand_i, (starts + delegates.indices[..., 0]).expand(n, subs)], dim=-1)
    second = torch.topk(cand_v, k, dim=-1)  # the second top-k
    return second.values, cand_i.gather(1, second.indices)


def drtopk_multi(shard: Any, k: int, offset: int) -> Optional[Tuple[Any, Any]]:
    """Paper 004 §5.4 (Figure 16): local Dr. Top-k, the local top-k's gathered to the primary
    GPU (rank 0), the final top-k there. Returns the answer on rank 0, None elsewhere."""
    world, rank = dist.get_world_size(), dist.get_rank()
    n = shard.shape[0]
    values, indices = delegate_topk(shard, k)
    indices = indices + offset
    every_v: Any = None  # the gathers' targets, on rank 0 only
    every_i: Any = None
    if rank == 0:
        every_v = torch.empty((world, n, k), dtype=shard.dtype, device=shard.device)
        every_i = torch.empty((world, n, k), dtype=torch.int64, device=shard.device)
    dist.gather(values.contiguous(), None if rank else list(every_v.unbind(0)), dst=0)
    dist.gather(indices.contiguous(), None if rank else list(every_i.unbind(0)), dst=0)
    if rank != 0:
        return None
    cand_v = every_v.permute(1, 0, 2).reshape(n, world * k)
    cand_i = every_i.permute(1, 0, 2).reshape(n, world * k)
    best = torch.topk(cand_v, k, dim=-1)
    return best.values, cand_i.gather(1, best.indices)


def identical(got: Any, want: Any) -> bool:
    return bool(
        torch.equal(bits(got[0]), bits(want[0])) and torch.equal(got[1], want[1].to(got[1].dtype))
    )


def same_answer(got: Any, want: Any) -> Dict[str, bool]:
    """For an answer whose ties go anywhere: the values as a multiset, the index sets."""
    gv = torch.sort(got[0].float(), dim=-1, descending=True).values
    wv = torch.sort(want[0].float(), dim=-1, descending=True).values
    gi = torch.sort(got[1], dim=-1).values
    wi = torch.sort(want[1], dim=-1).values
    return {
        "same_values": bool(torch.equal(gv, wv)),
        "same_indices": bool(torch.equal(gi, wi)),
    }


def run_split(case: Dict[str, Any], args: Any, clock: Clock, dev: Any, seed: int) -> None:
    world, rank = dist.get_world_size(), dist.get_rank()
    n, m, k = case["n"], case["m"], case["k"]
    dtype = getattr(torch, case["dtype"])
    width = m // world
    esize = torch.empty(0, dtype=dtype).element_size()
    case["bytes_per_rank"] = n * width * esize
    case["split_pays"] = rd.split_pays(case["bytes_per_rank"])
    case["split_pays_graphed"] = rd.split_pays(case["bytes_per_rank"], graphed=True)
    g = torch.Generator(device=dev).manual_seed(seed * 64 + rank)
    shard = torch.randn(n, width, generator=g, device=dev, dtype=torch.float32).to(dtype)
    offset = rank * width
    fits = fits_rank0(n * m * esize, dev)
    whole = gather_whole(shard, -1, fits, dev)
    want = None if whole is None else rtopk.topk(whole, k, -1, True, False)
    ms: Dict[str, Optional[float]] = {}
    lat: Dict[str, Optional[float]] = {}

    def ours() -> Any:
        return rd.topk_split_rows(shard, k, -1, True, False, timeout=None)

    ms["rtopk"], lat["rtopk"] = timed_both(clock, ours, args, dev)
    graph = captured(ours, dev)
    if isinstance(graph, str):
        case.setdefault("errors", {})["rtopk_graph"] = graph
    else:
        ms["rtopk_graph"], lat["rtopk_graph"] = timed_both(clock, graph[0].replay, args, dev)
    ms["torch_merge"], lat["torch_merge"] = timed_both(
        clock, lambda: torch_merge(shard, k, offset), args, dev
    )
    ms["drtopk"], lat["drtopk"] = timed_both(
        clock, lambda: drtopk_multi(shard, k, offset), args, dev
    )
    alone = (lambda: rtopk.topk(whole, k, -1, True, False)) if whole is not None else None
    # every rank takes part (rank 0 times, the others wait for its broadcast) where it fits
    ms["one_gpu"] = loop_rank0(clock, alone, args, dev) if fits else None
    lat["one_gpu"] = timed_rank0(clock, alone, args.reps, args.warmup, dev) if fits else None
    if rank == 0 and want is not None:
        case["check"] = {
            "rtopk": {"identical": identical(ours(), want)},
            **graph_check(graph, want),
            "torch_merge": same_answer(torch_merge(shard, k, offset), want),
            "drtopk": same_answer(drtopk_multi(shard, k, offset), want),
        }
    else:
        ours()
        if not isinstance(graph, str):
            graph[0].replay()
        torch_merge(shard, k, offset)
        drtopk_multi(shard, k, offset)
    case["ms"] = ms
    case["speedup_vs_one_gpu"] = speedups(ms)
    case["latency_ms"] = lat
    case["latency_speedup_vs_one_gpu"] = speedups(lat)


def run_sharded(case: Dict[str, Any], args: Any, clock: Clock, dev: Any, seed: int) -> None:
    world, rank = dist.get_world_size(), dist.get_rank()
    n, m, k = case["n"], case["m"], case["k"]
    rows = n // world
    case["bytes_per_rank"] = rows * m * 4
    g = torch.Generator(device=dev).manual_seed(seed * 64 + rank)
    shard = torch.randn(rows, m, generator=g, device=dev)
    fits = fits_rank0(n * m * 4, dev)
    whole = gather_whole(shard, 0, fits, dev)
    want = None if whole is None else rtopk.topk(whole, k, -1, True, False)
    ms: Dict[str, Optional[float]] = {}
    lat: Dict[str, Optional[float]] = {}

    def local() -> Any:
        return rd.topk_sharded_rows(shard, k, -1, True, False, timeout=None)

    def gathered() -> Any:
        return rd.topk_sharded_rows(shard, k, -1, True, False, gather_to=0, timeout=None)

    ms["rtopk_local"], lat["rtopk_local"] = timed_both(clock, local, args, dev)
    ms["rtopk_gather0"], lat["rtopk_gather0"] = timed_both(clock, gathered, args, dev)
    alone = (lambda: rtopk.topk(whole, k, -1, True, False)) if whole is not None else None
    # every rank takes part (rank 0 times, the others wait for its broadcast) where it fits
    ms["one_gpu"] = loop_rank0(clock, alone, args, dev) if fits else None
    lat["one_gpu"] = timed_rank0(clock, alone, args.reps, args.warmup, dev) if fits else None
    got = gathered()
    if rank == 0 and want is not None:
        both = (got.all_values, got.all_indices)
        case["check"] = {"rtopk_gather0": {"identical": identical(both, want)}}
    case["ms"] = ms
    case["speedup_vs_one_gpu"] = speedups(ms)
    case["latency_ms"] = lat
    case["latency_speedup_vs_one_gpu"] = speedups(lat)


def captured(fn: Callable[[], Any], dev: Any) -> Any:
    """``fn`` (a remembered request: its agreement already made) captured in a CUDA graph:
    ``(graph, outputs)``, which every replay rewrites; or the reason it could not be."""
    if dev.type != "cuda":
        return "CUDA graphs need a GPU"
    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            fn()
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = fn()
        return graph, out
    except Exception as e:  # recorded in the report; the run goes on
        return f"{type(e).__name__}: {e}"


def graph_check(graph: Any, want: Any) -> Dict[str, Any]:
    """The graph's answer after one more replay against one GPU's."""
    if isinstance(graph, str):
        return {}
    graph[0].replay()
    torch.cuda.synchronize()
    return {"rtopk_graph": {"identical": identical(graph[1], want)}}


def speedups(ms: Dict[str, Optional[float]]) -> Dict[str, Optional[float]]:
    one = ms.get("one_gpu")
    return {name: (one / t if one and t else None) for name, t in ms.items() if name != "one_gpu"}


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--out", help="the JSON report (written by rank 0)")
    ap.add_argument("--table", nargs="+", metavar="JSON", help="print reports as markdown")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--calls", type=int, default=20, help="calls per steady loop")
    ap.add_argument("--loops", type=int, default=5, help="steady loops per method")
    ap.add_argument("--max-seconds", type=float, default=230.0, help="skip cases past this")
    ap.add_argument("--only", choices=("split", "sharded"), help="one family of cases")
    ap.add_argument("--backend", default="nccl", choices=("nccl", "gloo"))
    ap.add_argument("--small", action="store_true", help="tiny shapes (a smoke test)")
    args = ap.parse_args()
    if args.table:
        print(table([json.load(open(f)) for f in args.table]))
        return
    if not args.out:
        ap.error("--out FILE is required (or --table FILE.json ...)")
    begin = time.monotonic()
    dist.init_process_group(args.backend)
    rank, world = dist.get_rank(), dist.get_world_size()
    if args.backend == "nccl":
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
        dev = torch.device("cuda", torch.cuda.current_device())
    else:
        dev = torch.device("cpu")
    clock = Clock(dev)
    todo = [("split", c) for c in split_cases(args.small)]
    todo += [("sharded", c) for c in sharded_cases(args.small)]
    todo = [(kind, c) for kind, c in todo if args.only in (None, kind)]
    # a throwaway case first: NCCL's first collectives of each kind and the kernels' first
    # builds would otherwise land in the first timed case
    run_split(
        {"kind": "split", "n": 1, "m": world << 16, "dtype": "float32", "k": 64},
        args,
        clock,
        dev,
        4096,
    )
    done: List[Dict[str, Any]] = []
    for seed, (kind, case) in enumerate(todo):
        case = {"kind": kind, **case}
        spent = torch.tensor([time.monotonic() - begin], device=dev)
        dist.all_reduce(spent, op=dist.ReduceOp.MAX)  # every rank takes the same decision
        if float(spent.item()) > args.max_seconds:
            case["error"] = "skipped: --max-seconds spent"
            done.append(case)
            continue
        t = time.monotonic()
        try:
            (run_split if kind == "split" else run_sharded)(case, args, clock, dev, seed)
        except Exception as e:  # recorded; the run goes on
            case["error"] = f"{type(e).__name__}: {e}"
        case["seconds"] = round(time.monotonic() - t, 2)
        if dev.type == "cuda":
            torch.cuda.empty_cache()
        done.append(case)
        if rank == 0:
            print(json.dumps(case), flush=True)
    names: List[Any] = [None] * world
    name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu"
    dist.all_gather_object(names, name)
    if rank == 0:
        nccl = torch.cuda.nccl.version() if dev.type == "cuda" else None
        report = {
            "world": world,
            "backend": args.backend,
            "devices": names,
            "torch": torch.__version__,
            "nccl": ".".join(map(str, nccl)) if isinstance(nccl, tuple) else nccl,
            "rtopk": rtopk.__version__,
            "date_utc": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()),
            "nccl_nvls_enable": os.environ.get("NCCL_NVLS_ENABLE"),
            "input": "standard normal, generated on each rank",
            "reps": args.reps,
            "warmup": args.warmup,
            "calls_per_loop": args.calls,
            "loops": args.loops,
            "split_pays_bytes": rd.SPLIT_PAYS_BYTES,
            "split_pays_bytes_graphed": rd.SPLIT_PAYS_BYTES_GRAPHED,
            "cases": done,
        }
        with open(args.out, "w") as f:
            json.dump(report, f, indent=1)
    dist.barrier()
    dist.destroy_process_group()


def table(reports: List[Dict[str, Any]]) -> str:
    """The reports as markdown: ms per call in a steady loop per method and its speedup over
    one GPU (its own loop), and rtopk's one call after a barrier against one GPU's."""
    head = (
        "| GPUs | case | dtype | k | MB/rank | splits pay | one GPU ms | rtopk ms (×) "
        "| rtopk graph ms (×) | torch merge ms (×) | Dr. Top-k ms (×) | gather_to=0 ms (×) "
        "| rtopk after a barrier ms (×) | identical |"
    )
    lines = [head, "|" + "---|" * 14]

    def cell(c: Dict[str, Any], name: str, kind: str = "") -> str:
        t = c.get(kind + "ms", {}).get(name)
        s = c.get(kind + "speedup_vs_one_gpu", {}).get(name)
        if t is None:
            return "–"
        return f"{t:.3f}" + (f" ({s:.2f}×)" if s else "")

    for r in reports:
        for c in r["cases"]:
            shape = f"{c['kind']} {c['n']} × {c['m']}"
            if "error" in c:
                row = f"| {r['world']} | {shape} | {c['dtype']} | {c['k']} | {c['error']} |"
                lines.append(row + " |" * 9)
                continue
            mine = "rtopk_local" if c["kind"] == "sharded" else "rtopk"
            check = c.get("check", {})
            ok = [v.get("identical") for v in check.values() if "identical" in v]
            same = "yes" if ok and all(ok) else ("NO" if ok else "unchecked")
            pays = c.get("split_pays")
            lines.append(
                f"| {r['world']} | {shape} | {c['dtype']} | {c['k']} "
                f"| {c['bytes_per_rank'] / 2**20:.0f} | {'' if pays is None else pays} "
                f"| {cell(c, 'one_gpu')} | {cell(c, mine)} | {cell(c, 'rtopk_graph')} "
                f"| {cell(c, 'torch_merge')} "
                f"| {cell(c, 'drtopk')} | {cell(c, 'rtopk_gather0')} "
                f"| {cell(c, mine, 'latency_')} | {same} |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
