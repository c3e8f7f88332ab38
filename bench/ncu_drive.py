"""A few rtopk.topk calls on one shape for a profiler (Nsight Compute, compute-sanitizer):
N x M rows of normal values in DTYPE, k, unsorted unless asked; the first call builds and
loads the kernels (skip it: `ncu --launch-skip 1`).

    ncu --kernel-name regex:rtopk_ --launch-skip 1 --launch-count 1 --cache-control all \\
        --metrics gpu__time_duration.sum python bench/ncu_drive.py 262144 64 6 bfloat16
"""

import argparse

import rtopk
import torch


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("n", type=int)
    ap.add_argument("m", type=int)
    ap.add_argument("k", type=int)
    ap.add_argument("dtype", choices=["float32", "float16", "bfloat16"])
    ap.add_argument("--sorted", action="store_true", help="sorted output")
    ap.add_argument("--calls", type=int, default=3)
    args = ap.parse_args()
    torch.manual_seed(0)
    x = torch.randn(args.n, args.m, device="cuda").to(getattr(torch, args.dtype))
    for _ in range(args.calls):
        rtopk.topk(x, args.k, sorted=args.sorted)
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
