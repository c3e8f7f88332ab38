#!/usr/bin/env python3
"""The split-rows regimes side by side: `rtopk bench cuda --grid split,vector,wide --json` (rtopk,
unsorted cells), bench/split_rows.py's JSON (torch.topk) and bench/peers' JSON lines
(FlashInfer, CUB DeviceTopK, DeviceBatchedTopK), all timed on the same data (the workspace's
fill_normal, seeded N 1000003 + M 101 + buffer). Prints Markdown: per regime and peer the
geometric mean of peer / rtopk, the worst cell and the cells rtopk loses; then every cell.

    python3 bench/regimes_table.py RTOPK.json TORCH.json PEERS.jsonl
"""

from __future__ import annotations

import json
import math
import sys
from typing import Dict, List, Tuple

Key = Tuple[int, int, int]
PEERS = ["torch", "flashinfer", "cub_topk", "cub_batched_topk", "cub_topk_per_row"]


def regime(k: Key) -> str:
    n, m, _ = k
    if n == 1 and m >= 1 << 24:
        return "vector"
    return "wide" if n == 16384 else "split"


def main() -> int:
    rtopk_json, torch_json, peers_jsonl = sys.argv[1:4]
    ours: Dict[Key, Dict] = {
        (r["n"], r["m"], r["k"]): r for r in json.load(open(rtopk_json)) if not r["sorted"]
    }
    times: Dict[str, Dict[Key, float]] = {p: {} for p in PEERS}
    for c in json.load(open(torch_json))["cases"]:
        if "torch_ms" in c:
            times["torch"][(c["n"], c["m"], c["k"])] = c["torch_ms"]
    for line in open(peers_jsonl):
        p = json.loads(line)
        if "median_ms" in p and p["peer"] in times:
            times[p["peer"]][(p["n"], p["m"], p["k"])] = p["median_ms"]
    print("| regime | peer | cells | peer / rtopk (geo. mean) | worst cell | cells rtopk loses |")
    print("|---|---|---|---|---|---|")
    for reg in ["split", "vector", "wide"]:
        for peer in PEERS:
            cells = [
                (times[peer][k] / ours[k]["median_ms"], k)
                for k in ours
                if regime(k) == reg and k in times[peer]
            ]
            if not cells:
                continue
            geo = math.exp(sum(math.log(r) for r, _ in cells) / len(cells))
            worst = min(cells)
            lost = sum(r < 1 for r, _ in cells)
            print(
                f"| {reg} | {peer} | {len(cells)} | {geo:.2f} | {worst[0]:.2f} at "
                f"N={worst[1][0]} M={worst[1][1]} k={worst[1][2]} | {lost} |"
            )
    print()
    print("| N | M | k | rtopk ms | % read bw | " + " | ".join(f"{p} ms" for p in PEERS) + " |")
    print("|---|---|---|---|---|" + "---|" * len(PEERS))
    for k in sorted(ours):
        r = ours[k]
        cols: List[str] = [f"{times[p][k]:.4f}" if k in times[p] else "–" for p in PEERS]
        print(
            f"| {k[0]} | {k[1]} | {k[2]} | {r['median_ms']:.4f} | "
            f"{100 * r['read_bw_fraction']:.0f} | " + " | ".join(cols) + " |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
