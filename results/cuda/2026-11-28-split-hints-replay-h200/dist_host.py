"""Where a replayed topk_split_rows call's host time goes (torchrun, NCCL): the whole call
after a barrier (events), back to back (events and host time over 20 calls), and the host
time of each part of the replayed hot path (perf_counter, 200 calls, synchronised every 20)."""
import json, statistics, time
import torch, torch.distributed as dist
import rtopk, rtopk.distributed as rd

dist.init_process_group("nccl")
rank, world = dist.get_rank(), dist.get_world_size()
torch.cuda.set_device(rank)
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
def loop(fn, calls=20):
    for _ in range(3): fn()
    torch.cuda.synchronize(); dist.barrier(); torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    h = pc(); a.record()
    for _ in range(calls): fn()
    b.record(); hh = pc() - h; b.synchronize()
    return a.elapsed_time(b) / calls, hh / calls * 1e3
for m_log, k, dt in ((26, 64, torch.float32), (28, 64, torch.float32), (26, 2048, torch.bfloat16)):
    m = (1 << m_log) // world
    g = torch.Generator(device="cuda"); g.manual_seed(rank)
    x = torch.randn(1, m, device="cuda", generator=g).to(dt)
    r = {}
    r["split_after_barrier_ms"] = ev(lambda: rd.topk_split_rows(x, k, sorted=False))
    r["split_loop_ms"], r["split_loop_host_ms"] = loop(lambda: rd.topk_split_rows(x, k, sorted=False))
    r["local_topk_after_barrier_ms"] = ev(lambda: rtopk.topk(x, k, sorted=False))
    r["local_loop_ms"], r["local_loop_host_ms"] = loop(lambda: rtopk.topk(x, k, sorted=False))
    plan = next(reversed(rd._AGREED.values()))
    rp = plan.replays[rd._stream_id(x)]
    parts = {p: [] for p in ("call_preamble", "topk", "copies", "all_gather", "replay", "clone")}
    for i in range(200):
        if i % 20 == 0: torch.cuda.synchronize(); dist.barrier(); torch.cuda.synchronize()
        t0 = pc(); rd._replayable(plan, x); rd._stream_id(x); t1 = pc()
        local = rtopk.topk(x, k, sorted=False); t2 = pc()
        rp.send_values.copy_(local.values); rp.send_indices.copy_(local.indices); t3 = pc()
        dist.all_gather_into_tensor(rp.every, rp.send); t4 = pc()
        rp.graph.replay(); t5 = pc()
        rp.values.clone(); rp.indices.clone(); t6 = pc()
        for p, a, b in zip(parts, (t0, t1, t2, t3, t4, t5), (t1, t2, t3, t4, t5, t6)):
            parts[p].append((b - a) * 1e6)
    r["host_us_median"] = {p: round(statistics.median(v), 1) for p, v in parts.items()}
    out[f"1x2^{m_log} k={k} {dt}"] = r
if rank == 0:
    print(json.dumps({"world": world, "cases": out}, indent=1))
dist.destroy_process_group()
