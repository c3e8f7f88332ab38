#!/usr/bin/env python3
"""Where a block row's time goes, stage by stage, from the SM's own clock: a copy of the kernel
files whose `rtopk_block_row` reads `clock64()` at its entry and after each stage (load and
min/max, search, the selection of the register slots, the rest) and prints the differences for
block 0, run through `rtopk bench cuda --kernel-dir` on each shape. The stamps cost a few
registers and one printf per launch; the per-stage cycles are what to read, not the call's
time (`rtopk bench cuda` without `--kernel-dir` gives that).

    python3 bench/block_stages.py BIN [--shape NxM:K ...] [--reps R] [--mhz F] [--json OUT]

BIN is the `rtopk` binary; `--mhz` converts cycles to microseconds (default: the GPU's maximum
SM clock, from nvidia-smi). Prints, per shape, the median cycles (and microseconds) of each
stage over the launches' block-0 stamps, and the median iteration count.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

KERNELS = Path(__file__).resolve().parent.parent / "crates" / "rtopk-cuda" / "kernels"
STAGES = ("load", "search", "select", "rest")

# (anchor line in block_rows.cu, the line put after it); each anchor must occur exactly once
STAMPS = [
    (
        "    float hint = hint_of<HINTS>(p, row_id);\n",
        "    long long t0 = clock64();\n",
    ),
    (
        "    block_range(row, lane_min, lane_max, &lo_key, &hi_key);\n",
        "    long long t1 = clock64();\n",
    ),
    (
        "    Search s = search_of<HINTS>(row, lo_key, hi_key, p, hint);\n",
        "    long long t2 = clock64();\n",
    ),
    (
        "                []() { __syncthreads(); }, row_in, out_val, out_idx);\n",
        "    long long t3 = clock64();\n",
    ),
]
REPORT = (
    "    __syncthreads();\n"
    "    long long t4 = clock64();\n"
    "    if (threadIdx.x == 0 && blockIdx.x == 0)\n"
    '        printf("STAGES it=%u load=%lld search=%lld select=%lld rest=%lld\\n", s.iterations,\n'
    "               t1 - t0, t2 - t1, t3 - t2, t4 - t3);\n"
)
END = "    if (threadIdx.x == 0 && p.out_iter) p.out_iter[row_id] = s.iterations;\n}\n"


def stamped(src: str) -> str:
    """block_rows.cu with the stamps and the report of rtopk_block_row."""
    for anchor, line in STAMPS:
        if src.count(anchor) != 1:
            raise SystemExit(f"block_rows.cu changed: anchor not found once: {anchor.strip()}")
        src = src.replace(anchor, anchor + line)
    if src.count(END) < 1:
        raise SystemExit("block_rows.cu changed: the end of rtopk_block_row not found")
    return src.replace(END, END[:-2] + REPORT + "}\n", 1)


def max_mhz() -> float:
    out = subprocess.run(
        ["nvidia-smi", "--query-gpu=clocks.max.sm", "--format=csv,noheader,nounits"],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(out.stdout.split()[0])


def run_shape(binary: str, kdir: str, shape: str, reps: int) -> dict[str, Any]:
    m = re.fullmatch(r"(\d+)x(\d+):(\d+)", shape)
    if not m:
        raise SystemExit(f"--shape {shape}: expected NxM:K")
    n, width, k = m.groups()
    cmd = [
        binary,
        "bench",
        "cuda",
        "--n",
        n,
        "--m",
        width,
        "-k",
        k,
        "--reps",
        str(reps),
    ]
    out = subprocess.run([*cmd, "--kernel-dir", kdir], capture_output=True, text=True, check=False)
    lines = [ln for ln in out.stdout.splitlines() + out.stderr.splitlines() if "STAGES" in ln]
    if not lines:
        raise SystemExit(f"{shape}: no stamps (exit {out.returncode}):\n{out.stderr[-2000:]}")
    fields: dict[str, list[int]] = {s: [] for s in ("it", *STAGES)}
    for ln in lines:
        for key, val in re.findall(r"(\w+)=(\d+)", ln):
            fields[key].append(int(val))
    return {"shape": shape, "launches": len(lines)} | {
        key: statistics.median(vals) for key, vals in fields.items()
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("--shape", action="append", default=[])
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--mhz", type=float, default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    shapes = args.shape or [
        "1x4096:512",
        "1x16384:512",
        "1x32768:2048",
        "128x32768:1024",
    ]
    mhz = args.mhz or max_mhz()
    with tempfile.TemporaryDirectory() as tmp:
        kdir = Path(tmp) / "kernels"
        shutil.copytree(KERNELS, kdir)
        path = kdir / "block_rows.cu"
        path.write_text(stamped(path.read_text()))
        rows = [run_shape(args.binary, str(kdir), s, args.reps) for s in shapes]
    print(f"block 0's stages, median cycles (µs at {mhz:.0f} MHz) over each shape's launches")
    print(f"{'shape':<18} {'iters':>5} " + " ".join(f"{s:>16}" for s in STAGES))
    for r in rows:
        cells = " ".join(f"{r[s]:>8.0f} ({r[s] / mhz:>5.2f})" for s in STAGES)
        print(f"{r['shape']:<18} {r['it']:>5.1f} {cells}")
    if args.json:
        Path(args.json).write_text(json.dumps({"mhz": mhz, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
