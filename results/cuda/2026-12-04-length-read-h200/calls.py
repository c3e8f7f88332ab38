"""One configuration's calls, for Nsight Compute to time kernel by kernel (the 2026-12-03
ragged-twins record's calls.py, with a torch mode and a vectorised check).

    ncu --profile-from-start off --metrics gpu__time_duration.sum --cache-control all --csv \
        python3 calls.py --shape 16384x1024:64 --mode lengths --calls 7

Rows are N(0, 1) (seeded), float32 (``--dtype`` bfloat16 or float16: those values rounded). Modes: ``plain`` (no per-row arrays), ``full`` (lengths = M
for every row), ``lengths`` (uniform on [0, M/2]), each asking for the threshold, unsorted, as
bench/decode.py does; ``torch``: torch.topk(x, k, sorted=False) on the full rows, the op a user
would call on rows padded to M. The profiler runs only around the timed calls (after a warm-up);
every rtopk answer is checked against torch.topk on the same rows (each row's valid prefix).
"""

import argparse

import torch

import rtopk


def check(x: torch.Tensor, k: int, lens: torch.Tensor, values: torch.Tensor) -> None:
    """The values of each row's selection against torch.topk of its first lens[r] values."""
    n, m = x.shape
    cols = torch.arange(m, device=x.device)
    masked = x.masked_fill(cols[None, :] >= lens[:, None], float("-inf"))
    take = torch.clamp(lens, max=k)
    slot = torch.arange(k, device=x.device)[None, :] < take[:, None]
    want = torch.topk(masked, k).values.masked_fill(~slot, float("-inf"))
    got = values[:, :k].masked_fill(~slot, float("-inf")).sort(dim=1, descending=True).values
    assert torch.equal(want, got), "values differ"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", required=True, help="NxM:K")
    ap.add_argument("--mode", choices=["plain", "lengths", "full", "torch"])
    ap.add_argument("--calls", type=int, default=7)
    ap.add_argument("--dtype", choices=["float32", "bfloat16", "float16"], default="float32")
    a = ap.parse_args()
    nm, k = a.shape.split(":")
    n, m = (int(v) for v in nm.split("x"))
    k = int(k)
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev).manual_seed(n * 7919 + m + k)
    x = torch.randn(n, m, device=dev, generator=gen).to(getattr(torch, a.dtype))
    kw = {}
    lens = torch.full((n,), m, device=dev, dtype=torch.int32)
    if a.mode == "lengths":
        lens = torch.randint(0, m // 2 + 1, (n,), device=dev, generator=gen, dtype=torch.int32)
        kw["lengths"] = lens
    elif a.mode == "full":
        kw["lengths"] = lens

    def call() -> None:
        if a.mode == "torch":
            torch.topk(x, k, sorted=False)
        else:
            rtopk.topk(x, k, sorted=False, return_threshold=True, **kw)

    if a.mode != "torch":
        out = rtopk.topk(x, k, sorted=False, return_threshold=True, **kw)  # warm-up: builds
        check(x, k, lens, out.values)
    call()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    for _ in range(a.calls):
        call()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()
    print(f"ok {a.shape} {a.mode}")


if __name__ == "__main__":
    main()
