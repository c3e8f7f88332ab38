"""p1 (rounds below the last pick) over p0 (HEAD) on bench/router_rows.py's output in a/: the
32 MB grid (each build twice, alternated; the better median of the two runs of each build) and
the nine router shapes. Prints markdown."""

import glob
import json
import math
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "a"


def rows(path: str) -> dict:
    return {(r["dtype"], r["m"], r["k"]): r for r in json.load(open(path))["rows"]}


def runs(build: str, name: str) -> list:
    return [rows(f) for f in sorted(glob.glob(f"{root}/grid_{build}_*/{name}"))]


def geo(v: list) -> float:
    return math.exp(sum(map(math.log, v)) / len(v))


p1, p0 = runs("p1", "pick_grid.json"), runs("p0", "pick_grid.json")
print("| dtype | M | k | p1/p0 unsorted | p1/p0 sorted | p1 GB/s unsorted | p0 GB/s | checks |")
print("|---|---|---|---|---|---|---|---|")
per = {}
for key in p1[0]:
    t1 = min(r[key]["rtopk_unsorted_ms"] for r in p1)
    t0 = min(r[key]["rtopk_unsorted_ms"] for r in p0)
    s1 = min(r[key]["rtopk_sorted_ms"] for r in p1)
    s0 = min(r[key]["rtopk_sorted_ms"] for r in p0)
    checks = ",".join(sorted({r[key]["check"] for r in p1 + p0}))
    per.setdefault(key[0], []).append((t1 / t0, s1 / s0))
    gbs = lambda t: 32 * 2**20 / t / 1e6
    print(f"| {key[0]} | {key[1]} | {key[2]} | {t1/t0:.3f} | {s1/s0:.3f} | {gbs(t1):.0f} | {gbs(t0):.0f} | {checks} |")
print()
for dt, v in per.items():
    u = [a for a, _ in v]
    s = [b for _, b in v]
    print(f"- {dt}: unsorted {geo(u):.3f} ({min(u):.3f}-{max(u):.3f}), sorted {geo(s):.3f} ({min(s):.3f}-{max(s):.3f})")
r1, r0 = rows(f"{root}/router_p1/router_rows.json"), rows(f"{root}/router_p0/router_rows.json")
print("\n| router shape | dtype | p1 ms | p0 ms | p1/p0 | p1 GB/s | torch/p1 |")
print("|---|---|---|---|---|---|---|")
for key, r in r1.items():
    a, b = r["rtopk_unsorted_ms"], r0[key]["rtopk_unsorted_ms"]
    print(f"| {r['n']} x {key[1]}, k={key[2]} | {key[0]} | {a:.4f} | {b:.4f} | {a/b:.3f} | {r['n']*key[1]*(4 if key[0]=='float32' else 2)/a/1e6:.0f} | {r['torch_unsorted_ms']/a:.2f} |")
