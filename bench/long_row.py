"""One long row through every face, on the GPU: the Rust API (crates/rtopk/examples/long_row.rs,
run separately), `rtopk select --algo cuda` (wall time of the whole command, old and new
binaries), and `rtopk.topk` on a torch tensor — its GPU time by CUDA events, and the host-to-
device copy, the call and the copy back by wall clock — with torch.topk beside it.

    python3 bench/long_row.py --out DIR [--m 134217728] [--k 100] [--bins new=BIN old=BIN]

Writes DIR/long_row.json and prints one line per measurement.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np
import rtopk
import torch


def fill(m: int) -> np.ndarray:
    """The example's fill: a fixed hash of the position, spread over [-8000, 8777)."""
    pos = np.arange(m, dtype=np.uint64)
    h = (pos * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)
    return (h.astype(np.float32) * np.float32(1e-3) - np.float32(8000.0)).reshape(1, m)


def gpu_ms(fn, reps: int) -> float:
    """Median GPU time of `fn` by CUDA events, after a warm-up call."""
    fn()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def wall_ms(fn, reps: int) -> float:
    """Median wall time of `fn` (synchronised), after a warm-up call."""
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--m", type=int, default=1 << 27)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--bins", nargs="*", default=[], help="LABEL=PATH of rtopk binaries")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    x = fill(a.m)
    rec: dict[str, object] = {"m": a.m, "k": a.k, "device": torch.cuda.get_device_name(0)}
    xd = torch.from_numpy(x).cuda()
    ours = rtopk.topk(xd, a.k, sorted=False)
    ref = torch.topk(xd, a.k, sorted=False)
    same = set(ours.indices.flatten().tolist()) == set(ref.indices.flatten().tolist())
    rec["same_set_as_torch"] = same
    rec["rtopk_gpu_ms"] = gpu_ms(lambda: rtopk.topk(xd, a.k, sorted=False), a.reps)
    rec["torch_gpu_ms"] = gpu_ms(lambda: torch.topk(xd, a.k, sorted=False), a.reps)
    xh = torch.from_numpy(x)
    rec["copy_in_ms"] = wall_ms(lambda: xh.cuda(), a.reps)
    rec["rtopk_with_copies_ms"] = wall_ms(
        lambda: [t.cpu() for t in rtopk.topk(xh.cuda(), a.k, sorted=False)], a.reps
    )
    npy = a.out / "row.npy"
    np.save(npy, x)
    for spec in a.bins:
        label, path = spec.split("=", 1)
        runs = []
        for _ in range(3):
            t = time.perf_counter()
            subprocess.run(
                [
                    path,
                    "select",
                    "--algo",
                    "cuda",
                    "-k",
                    str(a.k),
                    "--input",
                    str(npy),
                    "--values",
                    str(a.out / "v.npy"),
                    "--indices",
                    str(a.out / "i.npy"),
                ],
                check=True,
            )
            runs.append((time.perf_counter() - t) * 1e3)
        rec[f"cli_{label}_wall_ms"] = runs
        got = np.load(a.out / "i.npy").flatten().tolist()
        rec[f"cli_{label}_same_set"] = set(got) == set(ref.indices.flatten().tolist())
    npy.unlink()
    for key, value in rec.items():
        print(f"{key}: {value}")
    (a.out / "long_row.json").write_text(json.dumps(rec, indent=1))


if __name__ == "__main__":
    main()
