#!/usr/bin/env python3
"""How much time any early stop can save on a grid: reads `rtopk bench cuda --grid rtopk --json`
(every exact unsorted cell with its early-stopping twins at max_iter 0, 2, ..., 8) and prints,
per max_iter, exact / early-stopping time over the cells (geometric mean, least, greatest).
max_iter = 0 makes no test at all, so its figure bounds what a recall rule (docs/contract.md
§6), which stops no earlier, can buy on that grid.

    python3 bench/stopping_bound.py GRID.json
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path


def main() -> int:
    cells: dict[tuple[int, int, int], dict[int | None, float]] = {}
    for r in json.loads(Path(sys.argv[1]).read_text()):
        if r["sorted"]:
            continue
        cells.setdefault((r["n"], r["m"], r["k"]), {})[r["max_iter"]] = r["median_ms"]
    steps = sorted({s for c in cells.values() for s in c if s is not None})
    print("| max_iter | cells | exact / early stop: geomean | least | greatest |")
    print("|---|---|---|---|---|")
    for s in steps:
        ratios = [c[None] / c[s] for c in cells.values() if None in c and s in c]
        geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f"| {s} | {len(ratios)} | {geo:.3f} | {min(ratios):.3f} | {max(ratios):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
