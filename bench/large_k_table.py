#!/usr/bin/env python3
"""Large k and few rows side by side: rtopk's time per cell against torch.topk, FlashInfer and
CUB on the grids indexer, sampler and vector-k (crates/rtopk-tools/src/gpu_bench.rs), all on the
workspace's fill_normal data. Prints Markdown: per grid and dtype the geometric mean of best
peer / rtopk, the worst cell and the cells rtopk loses (a peer faster than rtopk), then every
cell.

    python3 bench/large_k_table.py --rtopk A.json [B.json ...] --split S.json [...] \\
        --peers P.jsonl [...]

--rtopk: `rtopk bench cuda --json` arrays (unsorted cells are read); --split:
bench/split_rows.py's JSON (its `rtopk_ms` and `torch_ms`; it names its dtype); --peers:
bench/peers JSON lines. Where two sources time rtopk on one cell, `rtopk bench cuda` wins.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

Key = tuple[str, int, int, int]  # dtype, n, m, k
PEERS = ["torch", "flashinfer", "cub_topk", "cub_batched_topk", "cub_topk_per_row"]
GRIDS = {
    "indexer": {
        (n, m, k)
        for n in (1, 2, 8, 32, 96, 256)
        for m in (16384, 49152, 100000, 163840, 500000, 1 << 21)
        for k in (512, 1024, 2048)
    },
    "sampler": {
        (n, m, k) for n in (1, 16, 128) for m in (32000, 100352, 262144) for k in (20, 64, 1024)
    },
    "vector-k": {(1, m, k) for m in (1 << 22, 1 << 25, 1 << 28) for k in (256, 2048, 8192, 32768)},
}


def geo(v: list[float]) -> float:
    return math.exp(sum(map(math.log, v)) / len(v))


def load(
    args: argparse.Namespace,
) -> tuple[dict[Key, float], dict[str, dict[Key, float]]]:
    ours: dict[Key, float] = {}
    peers: dict[str, dict[Key, float]] = {p: {} for p in PEERS}
    for path in args.split:
        doc = json.loads(Path(path).read_text())
        dtype = doc["environment"].get("dtype", "f32")
        for c in doc["cases"]:
            key = (dtype, c["n"], c["m"], c["k"])
            if "rtopk_ms" in c and c.get("check") == "ok":
                ours[key] = c["rtopk_ms"]
                peers["torch"][key] = c["torch_ms"]
    for path in args.rtopk:
        text = Path(path).read_text()
        if not text.strip():
            continue  # a run that timed out before printing
        for r in json.loads(text):
            if not r["sorted"] and r["max_iter"] is None and r.get("recall") is None:
                ours[("f32", r["n"], r["m"], r["k"])] = r["median_ms"]
    for path in args.peers:
        for line in Path(path).read_text().splitlines():
            p = json.loads(line)
            if "median_ms" in p and p["peer"] in peers and p.get("check", "ok") == "ok":
                key = (p.get("dtype", "f32"), p["n"], p["m"], p["k"])
                peers[p["peer"]][key] = p["median_ms"]
    return ours, peers


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rtopk", nargs="*", default=[])
    ap.add_argument("--split", nargs="*", default=[])
    ap.add_argument("--peers", nargs="*", default=[])
    ours, peers = load(ap.parse_args())
    print(
        "| grid | dtype | cells | best peer / rtopk (geo. mean) | worst cell | cells lost "
        "| torch / rtopk |"
    )
    print("|---|---|---|---|---|---|---|")
    lines = []
    for grid, shapes in GRIDS.items():
        for dtype in ("f32", "bf16"):
            cells = sorted(k for k in ours if k[0] == dtype and k[1:] in shapes)
            ratios, lost, vs_torch = [], 0, []
            worst: tuple[float, Any] = (math.inf, None)
            for key in cells:
                others = {p: t[key] for p, t in peers.items() if key in t and p != "torch"}
                if key in peers["torch"]:
                    vs_torch.append(peers["torch"][key] / ours[key])
                best = min(others.items(), key=lambda kv: kv[1]) if others else None
                ratio = best[1] / ours[key] if best else math.nan
                if best:
                    ratios.append(ratio)
                    lost += ratio < 1.0
                    worst = min(worst, (ratio, key), key=lambda w: w[0])
                times = " | ".join(
                    f"{peers[p][key]:.4f}" if key in peers[p] else "–" for p in PEERS
                )
                lines.append(
                    f"| {grid} | {dtype} | {key[1]} | {key[2]} | {key[3]} | {ours[key]:.4f} | "
                    f"{times} | {best[0] if best else '–'} | {ratio:.2f} |"
                )
            if not cells:
                continue
            w = worst[1]
            worst_text = f"{worst[0]:.2f} at N={w[1]} M={w[2]} k={w[3]}" if w else "–"
            print(
                f"| {grid} | {dtype} | {len(cells)} | "
                f"{geo(ratios) if ratios else math.nan:.2f} | {worst_text} | "
                f"{lost} of {len(ratios)} | "
                f"{geo(vs_torch) if vs_torch else math.nan:.2f} |"
            )
    print()
    print(
        "| grid | dtype | N | M | k | rtopk ms | "
        + " | ".join(f"{p} ms" for p in PEERS)
        + " | best peer | best peer / rtopk |"
    )
    print("|---|---|---|---|---|---|" + "---|" * len(PEERS) + "---|---|")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
