"""A new build over an old one on bench/router_rows.py's output in a call's folder: the 32 MB
grid (each build twice, alternated; the better median of the two runs of each build) and the
nine router shapes. Prints markdown.

    python3 table.py a          # call a: p1 over p0
    python3 table.py b p2 p1    # call b: p2 over p1"""

import glob
import json
import math
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "a"
new, old = (sys.argv[2], sys.argv[3]) if len(sys.argv) > 3 else ("p1", "p0")


def rows(path: str) -> dict:
    return {(r["dtype"], r["m"], r["k"]): r for r in json.load(open(path))["rows"]}


def runs(build: str, name: str) -> list:
    return [rows(f) for f in sorted(glob.glob(f"{root}/grid_{build}_*/{name}"))]


def geo(v: list) -> float:
    return math.exp(sum(map(math.log, v)) / len(v))


p1, p0 = runs(new, "pick_grid.json"), runs(old, "pick_grid.json")
print(f"| dtype | M | k | {new}/{old} unsorted | {new}/{old} sorted | {new} GB/s unsorted | {old} GB/s | checks |")
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
r1, r0 = rows(f"{root}/router_{new}/router_rows.json"), rows(f"{root}/router_{old}/router_rows.json")
print(f"\n| router shape | dtype | {new} ms | {old} ms | {new}/{old} | {new} GB/s | torch/{new} |")
print("|---|---|---|---|---|---|---|")
for key, r in r1.items():
    a, b = r["rtopk_unsorted_ms"], r0[key]["rtopk_unsorted_ms"]
    print(f"| {r['n']} x {key[1]}, k={key[2]} | {key[0]} | {a:.4f} | {b:.4f} | {a/b:.3f} | {r['n']*key[1]*(4 if key[0]=='float32' else 2)/a/1e6:.0f} | {r['torch_unsorted_ms']/a:.2f} |")
