"""Where a topk_split_rows call's time goes (torchrun, NCCL): per call after a barrier
(events), back to back (events over 20 calls), host time per call, and each part alone."""
import os, time, statistics, json, sys
import torch, torch.distributed as dist
import rtopk, rtopk.distributed as rd

dist.init_process_group("nccl")
rank, world = dist.get_rank(), dist.get_world_size()
torch.cuda.set_device(rank)
out = {}
def ev(fn, reps=15, barrier=True):
    for _ in range(3): fn()
    torch.cuda.synchronize(); ts = []
    for _ in range(reps):
        if barrier: dist.barrier()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); b.synchronize(); ts.append(a.elapsed_time(b))
    return statistics.median(ts)
def loop(fn, calls=20):
    for _ in range(3): fn()
    torch.cuda.synchronize(); dist.barrier(); torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    h = time.perf_counter(); a.record()
    for _ in range(calls): fn()
    b.record(); hh = time.perf_counter() - h; b.synchronize()
    return a.elapsed_time(b) / calls, hh / calls * 1e3
for m_log, k, dt in ((28, 64, torch.float32), (26, 2048, torch.bfloat16), (30, 64, torch.float32)):
    m = (1 << m_log) // world
    g = torch.Generator(device="cuda"); g.manual_seed(rank)
    x = torch.randn(1, m, device="cuda", generator=g).to(dt)
    r = {}
    r["split_after_barrier_ms"] = ev(lambda: rd.topk_split_rows(x, k, sorted=False))
    r["split_loop_ms"], r["split_loop_host_ms"] = loop(lambda: rd.topk_split_rows(x, k, sorted=False))
    r["local_topk_ms"] = ev(lambda: rtopk.topk(x, k, sorted=False), barrier=False)
    r["local_loop_ms"], r["local_loop_host_ms"] = loop(lambda: rtopk.topk(x, k, sorted=False))
    size = k * (8 + x.element_size())
    send = torch.empty(size, dtype=torch.uint8, device="cuda"); every = torch.empty(world * size, dtype=torch.uint8, device="cuda")
    r["all_gather_ms"] = ev(lambda: dist.all_gather_into_tensor(every, send))
    r["all_gather_loop_ms"], r["all_gather_loop_host_ms"] = loop(lambda: dist.all_gather_into_tensor(every, send))
    cand = torch.randn(1, world * k, device="cuda").to(dt)
    r["merge_loop_ms"], r["merge_loop_host_ms"] = loop(lambda: rtopk.topk(cand, k, sorted=False))
    out[f"1x2^{m_log} k={k} {dt}"] = r
if rank == 0:
    print(json.dumps({"world": world, "cases": out}, indent=1))
dist.destroy_process_group()
