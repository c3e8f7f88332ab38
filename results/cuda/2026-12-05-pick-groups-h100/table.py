"""A new build over an old one on bench/router_rows.py's output in a call's folder (its all.tgz
extracted there): the 32 MB grid (each build run twice, alternated; the better median of the
two runs of each build) and the router shapes. Prints markdown.

    python3 table.py b p6 p4    # call b: p6 over p4"""

import glob
import json
import math
import sys

root, new, old = sys.argv[1], sys.argv[2], sys.argv[3]


def rows(path: str) -> dict:
    return {(r["dtype"], r["m"], r["k"]): r for r in json.load(open(path))["rows"]}


def runs(build: str) -> list:
    return [rows(f) for f in sorted(glob.glob(f"{root}/grid_{build}_*/pick_grid.json"))]


def geo(v: list) -> float:
    return math.exp(sum(map(math.log, v)) / len(v))


def best(rs: list, key: tuple, field: str) -> float:
    return min(r[key][field] for r in rs)


gn, go = runs(new), runs(old)
print(f"| dtype | M | k | {new}/{old} unsorted | {new}/{old} sorted | {new} GB/s | {old} GB/s | checks |")
print("|---|---|---|---|---|---|---|---|")
per: dict = {}
for key in gn[0]:
    t1, t0 = best(gn, key, "rtopk_unsorted_ms"), best(go, key, "rtopk_unsorted_ms")
    s1, s0 = best(gn, key, "rtopk_sorted_ms"), best(go, key, "rtopk_sorted_ms")
    checks = ",".join(sorted({r[key]["check"] for r in gn + go}))
    per.setdefault(key[0], []).append((t1 / t0, s1 / s0))
    gbs = lambda t: 32 * 2**20 / t / 1e6  # noqa: E731
    print(f"| {key[0]} | {key[1]} | {key[2]} | {t1/t0:.3f} | {s1/s0:.3f} | {gbs(t1):.0f} | {gbs(t0):.0f} | {checks} |")
print()
for dt, v in per.items():
    u, s = [a for a, _ in v], [b for _, b in v]
    print(f"- {dt}: unsorted {geo(u):.3f} ({min(u):.3f}-{max(u):.3f}), sorted {geo(s):.3f} ({min(s):.3f}-{max(s):.3f})")
rn, ro = rows(f"{root}/router_{new}/router_rows.json"), rows(f"{root}/router_{old}/router_rows.json")
print(f"\n| router shape | dtype | {new} ms | {old} ms | {new}/{old} | {new} GB/s | torch/{new} |")
print("|---|---|---|---|---|---|---|")
for key, r in rn.items():
    a, b = r["rtopk_unsorted_ms"], ro[key]["rtopk_unsorted_ms"]
    size = r["n"] * key[1] * (4 if key[0] == "float32" else 2)
    print(f"| {r['n']} x {key[1]}, k={key[2]} | {key[0]} | {a:.4f} | {b:.4f} | {a/b:.3f} | {size/a/1e6:.0f} | {r['torch_unsorted_ms']/a:.2f} |")
