"""One configuration's rtopk calls, for Nsight Compute to time kernel by kernel.

    ncu --profile-from-start off --metrics gpu__time_duration.sum --cache-control all --csv \
        python3 calls.py --shape 64x128256:50 --mode hinted --calls 5

Rows are N(0, 1) (seeded), float32; ``hinted`` passes each row's threshold of the same rows
with 2 % of their values redrawn (the decode benchmark's model, bench/decode.py);
``lengths``/``quarter``/``full`` pass each row's own length (uniform on [0, M/2]; M/4 for
every row; M for every row). Every call asks for the threshold, unsorted, as bench/decode.py
does. The profiler runs only around the timed calls (after a warm-up of each); each answer is
checked against torch.topk on the same rows.
"""

import argparse

import torch

import rtopk


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", required=True, help="NxM:K")
    ap.add_argument("--mode", choices=["plain", "hinted", "lengths", "quarter", "full"])
    ap.add_argument("--calls", type=int, default=5)
    a = ap.parse_args()
    nm, k = a.shape.split(":")
    n, m = (int(v) for v in nm.split("x"))
    k = int(k)
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev).manual_seed(n * 7919 + m + k)
    x = torch.randn(n, m, device=dev, generator=gen)
    kw = {}
    if a.mode == "hinted":
        before = x.clone()
        redraw = torch.rand(n, m, device=dev, generator=gen) < 0.02
        before[redraw] = torch.randn(int(redraw.sum()), device=dev, generator=gen)
        kw["hint"] = rtopk.topk(before, k, sorted=False, return_threshold=True).threshold
    elif a.mode == "lengths":
        kw["lengths"] = torch.randint(0, m // 2 + 1, (n,), device=dev, generator=gen,
                                      dtype=torch.int32)
    elif a.mode == "quarter":
        kw["lengths"] = torch.full((n,), m // 4, device=dev, dtype=torch.int32)
    elif a.mode == "full":
        kw["lengths"] = torch.full((n,), m, device=dev, dtype=torch.int32)
    out = rtopk.topk(x, k, sorted=False, return_threshold=True, **kw)  # warm-up: builds
    lens = kw.get("lengths")
    for r in range(n):
        length = m if lens is None else int(lens[r])
        take = min(k, length)
        want = torch.topk(x[r, :length], take).values.sort().values
        got = out.values[r, :take].sort().values
        assert torch.equal(want, got), f"row {r}: values differ"
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    for _ in range(a.calls):
        rtopk.topk(x, k, sorted=False, return_threshold=True, **kw)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()
    print(f"ok {a.shape} {a.mode}")


if __name__ == "__main__":
    main()
