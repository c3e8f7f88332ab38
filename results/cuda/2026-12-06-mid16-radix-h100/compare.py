#!/usr/bin/env python3
"""Old against new build on bench/split_rows.py's printed tables (its stdout, the step logs):
per cell the better (smaller) rtopk median over each build's runs, new / old, torch.topk's
time and both builds' checks; with --rtopk BIN, whether BIN's plan (`rtopk plan --gpu h100`)
gives the cell the radix select, and the geometric means of the cells it moves and of the rest.

    python3 compare.py --old A.txt [A2.txt ...] --new B.txt [...] [--dtype bfloat16] [--rtopk BIN]
"""

from __future__ import annotations

import argparse
import math
import subprocess

Cell = tuple[int, int, int]


def load(paths: list[str]) -> dict[Cell, tuple[float, float, str]]:
    out: dict[Cell, tuple[float, float, str]] = {}
    for path in paths:
        for line in open(path):
            p = [x.strip() for x in line.strip().strip("|").split("|")]
            if len(p) != 10 or not p[1].isdigit():
                continue
            key = (int(p[1]), int(p[2]), int(p[3]))
            ms, torch_ms, check = float(p[4]), float(p[5]), p[9]
            if key in out:
                a, t, c = out[key]
                ms, torch_ms, check = min(ms, a), min(torch_ms, t), c if c != "ok" else check
            out[key] = (ms, torch_ms, check)
    return out


def takes_radix(rtopk: str, dtype: str, key: Cell) -> bool:
    n, m, k = key
    cmd = [rtopk, "plan", "--gpu", "h100", "--dtype", dtype, "--n", str(n), "--m", str(m)]
    text = subprocess.run(cmd + ["-k", str(k)], capture_output=True, text=True).stdout
    return "rtopk_radix" in text


def geo(v: list[float]) -> str:
    if not v:
        return "no cells"
    g = math.exp(sum(map(math.log, v)) / len(v))
    return f"{len(v)} cells {g:.3f} ({min(v):.3f}-{max(v):.3f})"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", nargs="+", required=True)
    ap.add_argument("--new", nargs="+", required=True)
    ap.add_argument("--dtype", default="bfloat16")
    ap.add_argument("--rtopk")
    args = ap.parse_args()
    old, new = load(args.old), load(args.new)
    moved: list[float] = []
    rest: list[float] = []
    for key in sorted(old):
        if key not in new:
            continue
        (a, ta, ca), (b, tb, cb) = old[key], new[key]
        r = b / a
        radix = bool(args.rtopk) and takes_radix(args.rtopk, args.dtype, key)
        (moved if radix else rest).append(r)
        n, m, k = key
        mark = "  radix" if radix else ""
        print(f"{n:3d} x {m:7d}, k = {k:4d}: {a * 1e3:6.1f} -> {b * 1e3:6.1f} us  {r:.3f}"
              f"  torch {min(ta, tb) * 1e3:6.1f} us  checked {ca} {cb}{mark}")
    if args.rtopk:
        print(f"radix select by the plan: {geo(moved)}; the rest: {geo(rest)}")
    else:
        print(geo(rest))


if __name__ == "__main__":
    main()
