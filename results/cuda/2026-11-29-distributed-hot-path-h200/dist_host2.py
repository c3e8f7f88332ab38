"""Where a hot topk_split_rows call's host time goes (torchrun, NCCL), after the hot path
(one lookup, the local selection launched into the send buffer, one packed clone): the whole
call after a barrier (events), back to back (events and host time over 20 calls), the host
time of each part of the hot path (perf_counter, 200 calls, synchronised every 20), the
public all-gather against the process group's own method, and a torch.profiler trace."""
import gzip, json, os, statistics, sys, time
import torch, torch.distributed as dist
import rtopk, rtopk.distributed as rd
from rtopk import _native

dist.init_process_group("nccl")
rank, world = dist.get_rank(), dist.get_world_size()
torch.cuda.set_device(rank)
OUT = sys.argv[1]
pc = time.perf_counter
out = {}
def ev(fn, reps=15):
    for _ in range(3): fn()
    torch.cuda.synchronize(); ts = []
    for _ in range(reps):
        dist.barrier()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); b.synchronize(); ts.append(a.elapsed_time(b))
    return statistics.median(ts)
def loop(fn, calls=20, reps=5):
    for _ in range(3): fn()
    r = []
    for _ in range(reps):
        torch.cuda.synchronize(); dist.barrier(); torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        h = pc(); a.record()
        for _ in range(calls): fn()
        b.record(); hh = pc() - h; b.synchronize()
        r.append((a.elapsed_time(b) / calls, hh / calls * 1e3))
    r.sort()
    return r[len(r) // 2]
for m_log, k, dt in ((26, 64, torch.float32), (28, 64, torch.float32), (26, 2048, torch.bfloat16), (30, 2048, torch.float32)):
    m = (1 << m_log) // world
    g = torch.Generator(device="cuda"); g.manual_seed(rank)
    x = torch.randn(1, m, device="cuda", generator=g).to(dt)
    r = {}
    call = lambda: rd.topk_split_rows(x, k, sorted=False)
    r["split_after_barrier_ms"] = ev(call)
    r["split_loop_ms"], r["split_loop_host_ms"] = loop(call)
    r["local_topk_after_barrier_ms"] = ev(lambda: rtopk.topk(x, k, sorted=False))
    r["local_loop_ms"], r["local_loop_host_ms"] = loop(lambda: rtopk.topk(x, k, sorted=False))
    every = [None] * world
    dist.all_gather_object(every, r["split_loop_host_ms"])
    r["split_loop_host_ms_per_rank"] = every
    key = rd._hot_key(x, k, -1, True, False, None, "once", {})
    hot = rd._HOT[key]
    plan, rp, c = hot
    assert rp.launch is not None
    stream = key[-2]
    ptrs = (x.data_ptr(), *rp.send_pointers, 0, 0, 0, 0, 0)
    parts = {p: [] for p in ("hot_lookup", "launch", "all_gather", "replay", "clone_views")}
    for i in range(200):
        if i % 20 == 0: torch.cuda.synchronize(); dist.barrier(); torch.cuda.synchronize()
        t0 = pc(); kk = rd._hot_key(x, k, -1, True, False, None, "once", {}); rd._HOT.get(kk); t1 = pc()
        _native.cuda_launch(rp.launch, 1, m, ptrs, stream); t2 = pc()
        dist.all_gather_into_tensor(rp.every, rp.send); t3 = pc()
        rp.graph.replay(); t4 = pc()
        rd._unpack(rp.out.clone(), rp.packed); t5 = pc()
        for p, a, b in zip(parts, (t0, t1, t2, t3, t4), (t1, t2, t3, t4, t5)):
            parts[p].append((b - a) * 1e6)
    r["host_us_median"] = {p: round(statistics.median(v), 1) for p, v in parts.items()}
    try:
        pg = dist.group.WORLD
        opts = torch._C._distributed_c10d.AllgatherOptions()
        base = []
        for i in range(200):
            if i % 20 == 0: torch.cuda.synchronize(); dist.barrier(); torch.cuda.synchronize()
            t0 = pc(); w = pg._allgather_base(rp.every, rp.send, opts); w.wait(); base.append((pc() - t0) * 1e6)
        r["host_us_median"]["allgather_base"] = round(statistics.median(base), 1)
    except Exception as e:
        r["allgather_base_error"] = repr(e)
    if m_log == 28 and len(sys.argv) > 2:
        from torch.profiler import profile, ProfilerActivity
        torch.cuda.synchronize(); dist.barrier(); torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(12): call()
            torch.cuda.synchronize()
        prof.export_chrome_trace(f"{OUT}/trace_2e28_rank{rank}.json")
    out[f"1x2^{m_log} k={k} {dt}"] = r
    del x
    torch.cuda.empty_cache()
if rank == 0:
    print(json.dumps({"world": world, "cases": out}, indent=1))
dist.destroy_process_group()
