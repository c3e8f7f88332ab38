"""The per-kernel table of call.sh's Nsight Compute CSV files: for each shape and mode, each
launch of a call (in launch order) with its median GPU µs over the calls, and the call's sum.

    python3 table.py CSV_DIR > table.md
"""

import csv
import io
import statistics
import sys
from pathlib import Path
from typing import Dict, List, Tuple


def kernels(path: Path) -> List[Tuple[str, float]]:
    """(kernel name, µs) of every profiled launch, in order."""
    text = path.read_text(errors="replace")
    start = text.find('"ID","Process ID"')
    if start < 0:
        return []
    rows = csv.DictReader(io.StringIO(text[start:]))
    out = []
    for r in rows:
        if r.get("Metric Name") != "gpu__time_duration.sum":
            continue
        scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3}[r["Metric Unit"]]
        v = float(r["Metric Value"].replace(",", "")) * scale
        out.append((r["Kernel Name"].split("(")[0], v))
    return out


def main() -> None:
    root = Path(sys.argv[1])
    calls = 7
    print("| shape | mode | launches: kernel median µs | call µs |")
    print("|---|---|---|---|")
    totals: Dict[Tuple[str, str], float] = {}
    for f in sorted(root.glob("*.csv")):
        shape, mode = f.stem.rsplit("_", 1)
        ks = kernels(f)
        if not ks or len(ks) % calls:
            print(f"| {shape} | {mode} | {len(ks)} launches: not {calls} calls' | |")
            continue
        per = len(ks) // calls
        cols = []
        total = 0.0
        for j in range(per):
            t = statistics.median(ks[i * per + j][1] for i in range(calls))
            total += t
            cols.append(f"{ks[j][0]} {t:.1f}")
        totals[(shape, mode)] = total
        print(f"| {shape} | {mode} | {'; '.join(cols)} | {total:.1f} |")
    print()
    print("| shape | ratio | value |")
    print("|---|---|---|")
    for (shape, mode), t in sorted(totals.items()):
        base = totals.get((shape, "plain"))
        if base and mode != "plain":
            print(f"| {shape} | {mode} / plain | {t / base:.3f} |")


if __name__ == "__main__":
    main()
