#!/usr/bin/env python3
"""What the threshold output costs a decode step: rtopk.topk with and without
return_threshold, plain and hinted, on bench/decode.py's model (N(0,1) rows, p = 2 % of the
values redrawn a step, inputs rotated past L2, each call alone between CUDA events behind a
queued spin; median µs). Usage: probe.py OUT.json [--unsorted] [NxM:K ...] — calls a and b
ran the package's default, sorted output; --unsorted is decode.py's mode."""

import json
import statistics
import sys

import torch

sys.path.insert(0, "bench")
import rtopk  # noqa: E402
from decode import Rotation, drift, time_rotated  # noqa: E402

SHAPES = [
    "1x16384:512", "16x16384:512", "1x32768:2048", "8x32768:2048", "16x32000:64",
    "8x131072:2048", "64x32768:2048", "64x32768:512", "128x32768:2048", "64x128256:50",
    "1x1048576:2048",
]


def main() -> None:
    out = sys.argv[1]
    unsorted = "--unsorted" in sys.argv[2:]
    shapes = [a for a in sys.argv[2:] if a != "--unsorted"] or SHAPES
    srt = not unsorted
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    rows = []
    print(f"{'shape':<18} {'plain':>7} {'plain+thr':>9} {'hinted':>7} {'hinted+thr':>10} "
          f"{'thr cost':>8} {'ratio+thr':>9} {'ratio':>6}")
    for text in shapes:
        dims, k = text.split(":")
        n, m = (int(v) for v in dims.split("x"))
        k = int(k)
        gen = torch.Generator(device="cuda").manual_seed(n * 7919 + m + k)
        x = torch.randn(n, m, device="cuda", generator=gen)
        prev = rtopk.topk(x, k, sorted=srt, return_threshold=True).threshold
        times = {key: [] for key in ("p", "pt", "h", "ht")}
        for _ in range(3):
            rtopk.topk(x, k, sorted=srt)
            rtopk.topk(x, k, sorted=srt, hint=prev)
        for step in range(4):
            x = drift(x, 0.02, gen)
            rot = Rotation(x, l2)
            h = prev
            times["p"] += time_rotated(lambda x: rtopk.topk(x, k, sorted=srt), rot, 15)
            times["pt"] += time_rotated(lambda x: rtopk.topk(x, k, sorted=srt, return_threshold=True), rot, 15)
            times["h"] += time_rotated(lambda x: rtopk.topk(x, k, sorted=srt, hint=h), rot, 15)
            times["ht"] += time_rotated(
                lambda x: rtopk.topk(x, k, sorted=srt, hint=h, return_threshold=True), rot, 15)
            prev = rtopk.topk(x, k, sorted=srt, return_threshold=True).threshold
        med = {key: statistics.median(v) for key, v in times.items()}
        row = {"shape": text, **med}
        rows.append(row)
        print(f"{text:<18} {med['p']:7.1f} {med['pt']:9.1f} {med['h']:7.1f} {med['ht']:10.1f} "
              f"{med['pt'] - med['p']:8.1f} {med['pt'] / med['ht']:9.3f} {med['p'] / med['h']:6.3f}",
              flush=True)
    with open(out, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(0), "sorted": srt, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
