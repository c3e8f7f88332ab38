#!/usr/bin/env python3
"""The RTop-K grid exact and at a recall target, side by side with torch.topk: reads
`rtopk bench cuda --grid rtopk --recall R --json` and bench/torch_topk.py's JSON on the same
shapes; prints per cell exact ms, recall ms, exact / recall, torch / exact, torch / recall, and
the geometric means (unsorted cells).

    python3 bench/recall_table.py RTOPK.json [TORCH.json]
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

Key = tuple[int, int, int]


def geo(v: list[float]) -> float:
    return math.exp(sum(map(math.log, v)) / len(v))


def main() -> int:
    exact: dict[Key, float] = {}
    recall: dict[Key, float] = {}
    target = None
    for r in json.loads(Path(sys.argv[1]).read_text()):
        if r["sorted"] or r["max_iter"] is not None:
            continue
        key = (r["n"], r["m"], r["k"])
        if r.get("recall") is None:
            exact[key] = r["median_ms"]
        else:
            recall[key], target = r["median_ms"], r["recall"]
    torch: dict[Key, float] = {}
    if len(sys.argv) > 2:
        for r in json.loads(Path(sys.argv[2]).read_text()):
            if not r["sorted"]:
                torch[(r["n"], r["m"], r["k"])] = r["median_ms"]
    keys = sorted(k for k in exact if k in recall)
    print(
        f"| N | M | k | exact ms | recall {target} ms | exact / recall | torch ms "
        "| torch / exact | torch / recall |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for key in keys:
        e, r, t = exact[key], recall[key], torch.get(key)
        tt = f"{t:.4f} | {t / e:.2f} | {t / r:.2f}" if t else "– | – | –"
        print(f"| {key[0]} | {key[1]} | {key[2]} | {e:.4f} | {r:.4f} | {e / r:.3f} | {tt} |")
    ratios = [exact[k] / recall[k] for k in keys]
    print(
        f"\n{len(keys)} cells: exact / recall geometric mean {geo(ratios):.3f} "
        f"(min {min(ratios):.3f}, max {max(ratios):.3f})"
    )
    with_torch = [k for k in keys if k in torch]
    if with_torch:
        print(
            f"torch / exact {geo([torch[k] / exact[k] for k in with_torch]):.2f}, "
            f"torch / recall {geo([torch[k] / recall[k] for k in with_torch]):.2f} "
            f"(geometric means over {len(with_torch)} cells)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
