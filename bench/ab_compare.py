#!/usr/bin/env python3
"""Two builds' `rtopk bench cuda --json` runs of the same grid, timed in one call, side by side:
per case the new/old ratio of the median kernel times, their geometric mean and range, and
the cases outside a tolerance; optionally a recorded run (another day's JSON) as a third column.

    python3 bench/ab_compare.py OLD.json NEW.json [--record REC.json] [--tolerance 0.02]
        [--exact-only]

Exits 1 when the geometric mean of new/old is outside 1 ± tolerance (cases are listed, but one
case's noise does not fail the comparison). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Dict, List, Tuple

Key = Tuple[int, int, int, object, bool, bool]


def cases(path: str, exact_only: bool) -> Dict[Key, float]:
    out: Dict[Key, float] = {}
    for r in json.load(open(path)):
        if exact_only and (r.get("max_iter") is not None or r.get("sorted")):
            continue
        key = (
            r["n"],
            r["m"],
            r["k"],
            r.get("max_iter"),
            bool(r.get("sorted")),
            bool(r.get("smallest")),
        )
        out[key] = float(r["median_ms"])
    return out


def label(k: Key) -> str:
    n, m, kk, it, srt, small = k
    extra = (
        ("" if it is None else f" max_iter={it}")
        + (" sorted" if srt else "")
        + (" smallest" if small else "")
    )
    return f"({n}, {m}, {kk}){extra}"


def geomean(xs: List[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--record", help="a recorded run of the same grid (another day)")
    ap.add_argument("--tolerance", type=float, default=0.02)
    ap.add_argument("--exact-only", action="store_true", help="only exact, unsorted cases")
    a = ap.parse_args()
    old, new = cases(a.old, a.exact_only), cases(a.new, a.exact_only)
    rec = cases(a.record, a.exact_only) if a.record else {}
    keys = [k for k in old if k in new]
    if not keys:
        print("no case in both runs", file=sys.stderr)
        return 1
    head = "| case | old ms | new ms | new/old |" + (" record ms | new/record |" if rec else "")
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    ratios, rec_ratios, outside = [], [], []
    for k in keys:
        r = new[k] / old[k]
        ratios.append(r)
        line = f"| {label(k)} | {old[k]:.4f} | {new[k]:.4f} | {r:.3f} |"
        if rec:
            if k in rec:
                rr = new[k] / rec[k]
                rec_ratios.append(rr)
                line += f" {rec[k]:.4f} | {rr:.3f} |"
            else:
                line += " – | – |"
        print(line)
        if abs(r - 1) > a.tolerance:
            outside.append((label(k), r))
    g = geomean(ratios)
    print()
    print(
        f"{len(keys)} cases: new/old geometric mean {g:.4f}, range {min(ratios):.3f} to "
        f"{max(ratios):.3f}; {len(outside)} case(s) outside ±{a.tolerance:.0%}"
        + (": " + ", ".join(f"{c} {r:.3f}" for c, r in outside) if outside else "")
    )
    if rec_ratios:
        print(
            f"new/record ({len(rec_ratios)} cases): geometric mean {geomean(rec_ratios):.4f}, "
            f"range {min(rec_ratios):.3f} to {max(rec_ratios):.3f}"
        )
    return 0 if abs(g - 1) <= a.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
