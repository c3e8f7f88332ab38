#!/usr/bin/env python3
"""The 16-bit warp sorts' record: bench/sort_step.py's JSON of two builds (BEFORE, AFTER) as one
table a dtype and grid — per cell the sorted call's GPU time on each, AFTER / BEFORE for the
sorted call and for the sort step (sorted minus unsorted time), and torch.topk sorted over
rtopk sorted on AFTER — with geometric means.

    python3 table.py BEFORE.json AFTER.json > table.md
"""

from __future__ import annotations

import json
import math
import sys


def geo(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main() -> None:
    before, after = (json.load(open(p))["rows"] for p in sys.argv[1:3])
    key = lambda r: (r["dtype"], r["n"], r["m"], r["k"])  # noqa: E731
    old = {key(r): r for r in before}
    groups: dict[tuple[str, str], list[tuple]] = {}
    for r in after:
        o = old.get(key(r))
        if o is None:
            continue
        grid = "rtopk" if r["m"] <= 768 else "sampler"
        groups.setdefault((r["dtype"], grid), []).append((o, r))
    print(f"device: {json.load(open(sys.argv[2]))['device']}\n")
    for (dtype, grid), pairs in groups.items():
        print(f"## {dtype}, {grid} grid\n")
        print("| N | M | k | sorted ms before | sorted ms after | after / before | sort step after / before | unsorted after / before | torch sorted / rtopk sorted | checks |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        calls, steps, plain, torch_x = [], [], [], []
        for o, r in pairs:
            call = r["rtopk_sorted_ms"] / o["rtopk_sorted_ms"]
            s_old = o["rtopk_sorted_ms"] - o["rtopk_unsorted_ms"]
            s_new = r["rtopk_sorted_ms"] - r["rtopk_unsorted_ms"]
            step = s_new / s_old if s_old > 0 and s_new > 0 else float("nan")
            un = r["rtopk_unsorted_ms"] / o["rtopk_unsorted_ms"]
            tx = r["torch_sorted_ms"] / r["rtopk_sorted_ms"]
            calls.append(call)
            plain.append(un)
            torch_x.append(tx)
            if not math.isnan(step):
                steps.append(step)
            ok = "ok" if o["check"] and r["check"] else f"before {o['check']} after {r['check']}"
            print(f"| {r['n']} | {r['m']} | {r['k']} | {o['rtopk_sorted_ms']:.4f} | {r['rtopk_sorted_ms']:.4f} | {call:.3f} | {step:.3f} | {un:.3f} | {tx:.2f}x | {ok} |")
        print(f"\ngeometric means: sorted call {geo(calls):.3f} (range {min(calls):.3f}-{max(calls):.3f}), "
              f"sort step {geo(steps):.3f} over {len(steps)} cells, unsorted call {geo(plain):.3f}, "
              f"torch sorted / rtopk sorted {geo(torch_x):.2f}x\n")


if __name__ == "__main__":
    main()
