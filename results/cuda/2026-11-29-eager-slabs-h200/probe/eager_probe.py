"""Probe: where rtopk's eager host time goes, and what a slab of outputs would save."""
import json, statistics, sys, time
import torch, rtopk
from rtopk import _native, _eager
from rtopk._topk import TopK

def host_us(fn, calls=5000, batch=250):
    for _ in range(batch):
        fn()
    torch.cuda.synchronize()
    times = []
    done = 0
    while done < calls:
        for _ in range(min(batch, calls - done)):
            t = time.perf_counter_ns(); fn(); times.append(time.perf_counter_ns() - t)
        done += batch
        torch.cuda.synchronize()
    return round(statistics.median(times) / 1e3, 3), round(statistics.mean(times) / 1e3, 3)

class Slab:
    def __init__(self, P): self.P = P; self.free = {}
    def take(self, x, shape, dtype):
        key = (shape, dtype)
        lst = self.free.get(key)
        if not lst:
            pool = x.new_empty((self.P * shape[0], *shape[1:]), dtype=dtype)
            lst = list(torch.unsafe_split(pool, shape[0], 0))
            lst.reverse()
            self.free[key] = lst
        return lst.pop()

def main():
    out = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "rows": []}
    for P in (64,):
        slab = Slab(P)
    for (n, m, k) in [(1, 256, 8), (64, 128256, 50)]:
        for dtype in (torch.float32, torch.bfloat16):
            x = torch.randn(n, m, device="cuda").to(dtype)
            rtopk.topk(x, k, sorted=False); rtopk.topk(x, k, sorted=False); rtopk.topk(x, k)
            req = _eager._REQUESTS[(k, True, False, x.dtype, 0)]
            shape = (n, k)
            r = {"n": n, "m": m, "k": k, "dtype": str(dtype)}
            def slab_topk():
                v = slab.take(x, shape, x.dtype); i = slab.take(x, shape, torch.int64)
                _native.cuda_launch(req, n, m, (x.data_ptr(), v.data_ptr(), i.data_ptr(), 0, 0, 0, 0, 0), torch._C._cuda_getCurrentRawStream(0))
                return TopK(v, i)
            # correctness of the slab prototype
            a = slab_topk(); b = torch.topk(x, k, sorted=False)
            assert torch.equal(a[0].sort(-1).values, b[0].sort(-1).values)
            v0 = x.new_empty(shape); i0 = x.new_empty(shape, dtype=torch.int64)
            ptrs = (x.data_ptr(), v0.data_ptr(), i0.data_ptr(), 0, 0, 0, 0, 0)
            cases = {
                "torch.topk unsorted": lambda: torch.topk(x, k, sorted=False),
                "rtopk.topk unsorted": lambda: rtopk.topk(x, k, sorted=False),
                "torch.topk sorted": lambda: torch.topk(x, k),
                "rtopk.topk sorted": lambda: rtopk.topk(x, k),
                "slab unsorted": slab_topk,
                "_eager.topk_cuda unsorted": lambda: _eager.topk_cuda(x, k, True, False),
                "new_empty values": lambda: x.new_empty(shape),
                "torch.empty values": lambda: torch.empty(shape, dtype=x.dtype, device=x.device),
                "new_empty int64": lambda: x.new_empty(shape, dtype=torch.int64),
                "slab take": lambda: slab.take(x, shape, x.dtype),
                "native launch": lambda: _native.cuda_launch(req, n, m, ptrs, torch._C._cuda_getCurrentRawStream(0)),
                "raw stream": lambda: torch._C._cuda_getCurrentRawStream(0),
                "TopK(v,i)": lambda: TopK(v0, i0),
                "attrs": lambda: (x.is_cuda, x.shape, x.is_contiguous(), x.get_device(), x.data_ptr()),
                "empty P-pool + unsafe_split (per call /P)": None,
            }
            for name, fn in cases.items():
                if fn is None:
                    P = 64
                    med, mean = host_us(lambda: torch.unsafe_split(x.new_empty((P * n, k)), n, 0), 500, 50)
                    r[name] = (round(med / P, 3), round(mean / P, 3))
                    continue
                r[name] = host_us(fn)
            # again, the two headline pairs, alternated
            for rep in range(2):
                for name in ("torch.topk unsorted", "rtopk.topk unsorted", "slab unsorted", "torch.topk sorted"):
                    r[f"{name} #{rep+2}"] = host_us(cases[name])
            with torch.inference_mode():
                r["inference torch.topk unsorted"] = host_us(lambda: torch.topk(x, k, sorted=False))
                r["inference rtopk.topk unsorted"] = host_us(lambda: rtopk.topk(x, k, sorted=False))
                r["inference new_empty"] = host_us(lambda: x.new_empty(shape))
            out["rows"].append(r)
            print(json.dumps(r), flush=True)
    # semantics of unsafe_split pieces
    pool = torch.empty((4, 8), device="cuda")
    p = torch.unsafe_split(pool, 1, 0)
    p[1].add_(1)
    out["semantics"] = {"base_is_none": p[0]._base is None, "versions": [t._version for t in p],
                        "is_view": [t._is_view() for t in p]}
    print(out["semantics"])
    json.dump(out, open(sys.argv[1], "w"), indent=1)

main()
