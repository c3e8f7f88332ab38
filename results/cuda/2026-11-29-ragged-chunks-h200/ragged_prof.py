"""Usage: ragged_prof.py OUT.json [NxM:K ...]

Per-kernel GPU time of rtopk.topk on full rows against the same batch with int32 device
lengths uniform on [0, M/2] (bench/decode.py's lengths mode), torch.profiler, 20 calls each;
the shapes given, else this record's five (../2026-12-01-ragged-radix-h200 gives its own)."""
import itertools, json, statistics, sys
import torch, rtopk
from torch.profiler import profile, ProfilerActivity

def kernels(fn, calls=20):
    for _ in range(5): fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls): fn()
        torch.cuda.synchronize()
    ev = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    ev.sort(key=lambda e: e.time_range.start)
    per = len(ev) // calls
    rows = []
    for j in range(per):
        d = [ev[i * per + j].time_range.elapsed_us() for i in range(calls)]
        rows.append((ev[j].name[:60], round(statistics.median(d), 2)))
    return rows, len(ev) % calls

out = {}
OWN = ((8, 131072, 2048), (1, 1 << 20, 2048), (16, 16384, 512), (64, 128256, 50), (128, 32768, 1024))
GIVEN = [tuple(int(v) for v in a.replace("x", ":").split(":")) for a in sys.argv[2:]]
for n, m, k in GIVEN or OWN:
    gen = torch.Generator(device="cuda").manual_seed(n * 7 + m)
    x = torch.randn(n, m, device="cuda", generator=gen)
    lengths = torch.randint(0, m // 2 + 1, (n,), device="cuda", generator=gen, dtype=torch.int32)
    full, r1 = kernels(lambda: rtopk.topk(x, k, sorted=False))
    rag, r2 = kernels(lambda: rtopk.topk(x, k, sorted=False, lengths=lengths))
    key = f"{n}x{m} k={k}"
    out[key] = {"full": full, "ragged": rag, "lengths": lengths.tolist()[:16], "rem": [r1, r2]}
    print(key, "full", round(sum(d for _, d in full), 1), "ragged", round(sum(d for _, d in rag), 1))
    for (a, da), (b, db) in itertools.zip_longest(full, rag, fillvalue=("", 0.0)):
        print(f"   {a:<42} {da:8.2f} | {b:<42} {db:8.2f}")
json.dump(out, open(sys.argv[1], "w"), indent=1)
