"""Usage: narrow_cells.py DIR NEW cells | narrow_cells.py DIR NEW table RTOPK — the grids'
cells of at most 16 rows of at least 98304 f32 elements with k <= 128, exact, from call b's
logs (DIR: grid_{q3,NEW}_{1,2}.json). `cells` writes them as an `rtopk bench cuda --json` list
(DIR/cells.json, for bench/torch_topk.py); `table` prints a markdown table of those that
RTOPK's plan gives rtopk_cluster_rows_narrow (`RTOPK plan --gpu h200`): HEAD's (q3) and NEW's
time, each the mean of the two grid runs' medians, and torch.topk's (DIR/torch.json), µs."""
import json
import subprocess
import sys
from collections import defaultdict

d, new, what = sys.argv[1], sys.argv[2], sys.argv[3]


def key(c):
    return (c["n"], c["m"], c["k"], bool(c.get("sorted")), bool(c.get("smallest")))


def candidate(c):
    exact = c.get("max_iter") is None and c.get("recall") is None
    return c["n"] <= 16 and c["m"] >= 98_304 and c["k"] <= 128 and exact


def narrows(rtopk, c):
    args = ["plan", "--gpu", "h200", "--n", str(c["n"]), "--m", str(c["m"]), "-k", str(c["k"])]
    out = subprocess.run([rtopk, *args], capture_output=True, text=True, check=True).stdout
    return "rtopk_cluster_rows_narrow" in out


runs = defaultdict(list)
first = []
for b in ("q3", new):
    for i in (1, 2):
        for c in json.load(open(f"{d}/grid_{b}_{i}.json")):
            if candidate(c):
                runs[(b, key(c))].append(c["median_ms"] * 1e3)
                if b == "q3" and i == 1:
                    first.append(c)
if what == "cells":
    json.dump(first, open(f"{d}/cells.json", "w"))
    sys.exit(0)
torch = {key(c): c["median_ms"] * 1e3 for c in json.load(open(f"{d}/torch.json"))}
print(f"| N × M | k | sorted | HEAD µs | {new} µs | {new} / HEAD | torch.topk µs | torch / {new} |")
print("|---|---|---|---|---|---|---|---|")
for c in first:
    if not narrows(sys.argv[4], c):
        continue
    k = key(c)
    old, now = runs[("q3", k)], runs[(new, k)]
    o, w = sum(old) / len(old), sum(now) / len(now)
    t = torch[k]
    print(f"| {k[0]} × {k[1]} | {k[2]} | {k[3]} | {o:.1f} | {w:.1f} | {w / o:.3f} | {t:.1f} | {t / w:.2f} |")
