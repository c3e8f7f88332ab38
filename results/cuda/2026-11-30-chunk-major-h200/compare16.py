"""Two wheels' `bench/split_rows.py --dtype bf16` runs of the same grid (call h): new over old
rtopk time per cell, its geometric mean and range, the cells outside 0.95-1.03 with torch.topk
/ rtopk, and each wheel's best peer / rtopk against the peers' bf16 indexer times recorded on
2026-11-29 (the last part was added after the call, run here on `h/logs.tgz`'s JSON).

    python3 results/cuda/2026-11-30-chunk-major-h200/compare16.py OLD.json NEW.json  (from the
    repository root)"""
import json
import math
import sys

old, new = (json.load(open(p))["cases"] for p in sys.argv[1:3])
key = lambda r: (r["grid"], r["n"], r["m"], r["k"])
o = {key(r): r for r in old if "rtopk_ms" in r}
rs = []
for r in new:
    if "rtopk_ms" in r and key(r) in o:
        rs.append((r["rtopk_ms"] / o[key(r)]["rtopk_ms"], key(r), r["torch_ms"] / r["rtopk_ms"], r.get("check")))
rs.sort()
gm = math.exp(sum(math.log(x) for x, *_ in rs) / len(rs))
print(f"{len(rs)} cells: new/old geometric mean {gm:.3f}, range {rs[0][0]:.3f} ({rs[0][1]}) to {rs[-1][0]:.3f} ({rs[-1][1]})")
print("checks:", sorted({str(c) for *_, c in rs}))
for x, k, t, _ in rs:
    if x < 0.95 or x > 1.03:
        print(f"  {k}: {x:.3f} (torch / rtopk {t:.2f})")

# best peer / rtopk against the peers' bf16 indexer times of 2026-11-29 (another call, the
# same grid and method), for each wheel: the least peer median per cell over rtopk's
peer = {}
for line in open("results/cuda/2026-11-29-cluster-rows-h200/c/table_new.md"):
    cells = [x.strip() for x in line.split("|")[1:-1]]
    if len(cells) == 13 and cells[1] == "bf16" and cells[0] == "indexer":
        times = [float(v) for v in cells[6:11] if v not in ("–", "nan")]
        peer[(int(cells[2]), int(cells[3]), int(cells[4]))] = min(times)
for name, cases in (("old", old), ("new", new)):
    ms = {(r["n"], r["m"], r["k"]): r["rtopk_ms"] for r in cases if r["grid"] == "indexer" and "rtopk_ms" in r}
    per = sorted((p / ms[c], c) for c, p in peer.items() if c in ms)
    gm = math.exp(sum(math.log(x) for x, _ in per) / len(per))
    lost = sum(1 for x, _ in per if x < 1.0)
    print(f"{name}: best peer / rtopk {gm:.2f} over {len(per)} cells, {lost} lost, worst {per[0][0]:.2f} at {per[0][1]}")
