"""torch.topk(sorted=True) on the merge sort's shapes: normal f32 rows, inputs rotated past L2,
CUDA events behind a queue of launches, median of 30 (the method of bench/sort_step.py).

Usage: python3 torch_sorted.py N,M,K[,K...] ...   (one JSON line a case on stdout)
"""

import json
import statistics
import sys

import torch


def time_ms(fn, reps: int = 30) -> float:
    for _ in range(3):
        fn(0)
    times = []
    for r in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(r)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def main() -> None:
    torch.manual_seed(0)
    for arg in sys.argv[1:]:
        n, m, *ks = (int(v) for v in arg.split(","))
        copies = max(2, (200 << 20) // (n * m * 4) + 1)
        xs = [torch.randn(n, m, device="cuda") for _ in range(copies)]
        for k in ks:
            ms = time_ms(lambda r: torch.topk(xs[r % copies], k, sorted=True))
            print(json.dumps({"n": n, "m": m, "k": k, "torch_sorted_ms": ms}), flush=True)


if __name__ == "__main__":
    main()
