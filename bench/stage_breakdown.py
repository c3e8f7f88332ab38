#!/usr/bin/env python3
"""Warp-instructions per row in each stage of the warp kernels (rtopk_quarter_rows_<EPL>,
rtopk_half_rows_<EPL>, rtopk_warp_rows_<EPL>), from Nsight Compute's per-instruction counts
(`ncu -i REP --page source --print-source sass --csv`).

    python3 bench/stage_breakdown.py SASS.csv N_ROWS

Stages by SASS markers: load = up to the row's min key (the first REDUX.MIN of a warp row, the
first SHFL.BFLY of a part-warp row's butterfly); search = from
there to the selection's scan (its first SHFL.UP), cut_of and the strong/band masks
included; select = the rest (scan, staging, writes, the iteration count). Counts are divided
by N_ROWS: with two (four) rows per warp, a warp-instruction counts a half (a quarter) for each
row."""

import csv
import sys


def main():
    rows = list(csv.reader(open(sys.argv[1])))
    n_rows = float(sys.argv[2])
    hdr, data = rows[1], rows[2:]
    src, ie = hdr.index("Source"), hdr.index("Instructions Executed")
    count = [int(r[ie]) / n_rows for r in data]
    text = [r[src] for r in data]
    load_end = next(i for i, t in enumerate(text) if "REDUX.MIN" in t or "SHFL.BFLY" in t)
    select_start = next(i for i, t in enumerate(text) if i > load_end and "SHFL.UP" in t)
    stages = {
        "load": sum(count[:load_end]),
        "search (+ cut, masks)": sum(count[load_end:select_start]),
        "select": sum(count[select_start:]),
    }
    total = sum(count)
    print(f"{'stage':<22} {'warp-instructions per row':>26} {'share':>7}")
    for name, c in stages.items():
        print(f"{name:<22} {c:>26.1f} {c / total:>7.1%}")
    print(f"{'total':<22} {total:>26.1f}")


if __name__ == "__main__":
    main()
