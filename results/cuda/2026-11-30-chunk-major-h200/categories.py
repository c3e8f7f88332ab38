"""The record's summaries of two builds' grids (`logs.tgz` of a/ or c/, extracted to DIR):
new over old per exact case by kind (whole rows; splits with the floor now, before, never), by
the plan's floor gates (figures of a/ and c/ side by side), and best peer / rtopk on the indexer
and sampler grids against the peers' times recorded in ../2026-11-29-cluster-rows-h200.

    python3 categories.py RTOPK A_DIR C_DIR

RTOPK: this tree's `rtopk` (its `plan --json` says which step takes the floor)."""
import collections
import json
import math
import subprocess
import sys

rtopk, a_dir, c_dir = sys.argv[1:4]


def load(path, exact_only=True):
    out = {}
    for r in json.load(open(path)):
        if exact_only and (r.get("max_iter") is not None or r.get("sorted")):
            continue
        key = (r["n"], r["m"], r["k"], r.get("max_iter") if r.get("max_iter") is not None else -1, bool(r.get("sorted")))
        out[key] = float(r["median_ms"])
    return out


def ratios(d, new, exact_only=True):
    x = [load(f"{d}/grid_{new}_{i}.json", exact_only) for i in (1, 2)]
    b = [load(f"{d}/grid_base2_{i}.json", exact_only) for i in (1, 2)]
    return {k: math.sqrt(x[0][k] / b[0][k] * x[1][k] / b[1][k]) for k in x[0]}


plans = {}


def chunk_step(n, m, k):
    if (n, m, k) not in plans:
        out = subprocess.run([rtopk, "plan", "--gpu", "h200", "--n", str(n), "--m", str(m), "-k", str(k), "--json"],
                             capture_output=True, text=True, check=True).stdout
        steps = [s for s in json.loads(out)["steps"] if s["name"] == "select_chunks"]
        plans[(n, m, k)] = (steps[0]["unit"], steps[0]["kernel"]["select"].get("floor") is not None) if steps else (None, False)
    return plans[(n, m, k)]


def summary(v):
    v = sorted(v)
    gm = math.exp(sum(math.log(r) for r in v) / len(v))
    return f"{len(v)} cases {gm:.3f} ({v[0]:.3f}-{v[-1]:.3f})"


print("## c/: by kind (every case)")
kinds = collections.defaultdict(list)
for key, r in ratios(c_dir, "c2", exact_only=False).items():
    unit, floor = chunk_step(*key[:3])
    before = key[1] >= 1 << 25
    kind = "whole" if unit is None else ("floor, new" if floor and not before else ("floor, both" if floor else "no floor"))
    kinds[kind].append(r)
for kind, v in sorted(kinds.items()):
    print(kind, summary(v))

print("## by gate (exact unsorted splits of rows below 2^25): a/ (floor everywhere), c/ (committed)")
a, c = ratios(a_dir, "x1"), ratios(c_dir, "c2")
gates = collections.defaultdict(list)
for key in a:
    n, m, k = key[:3]
    unit, _ = chunk_step(n, m, k)
    if unit is None or m >= 1 << 25:
        continue
    block = unit.startswith("rtopk_block_rows") and "narrow" not in unit
    if n * m >= 1 << 26:
        gate = "2^26 elements and more"
    elif block:
        gate = "block rows, 3 * 2^22 up to 2^26" if n * m >= 3 << 22 else "block rows, fewer"
    else:
        gate = "warp or narrowing chunks, fewer than 2^26"
    gates[gate].append((a[key], c[key]))
for gate, v in gates.items():
    print(gate, "a/:", summary([x for x, _ in v]), "c/:", summary([y for _, y in v]))

print("## best peer / rtopk, f32, peers of 2026-11-29")
peer = {}
for line in open("results/cuda/2026-11-29-cluster-rows-h200/c/table_new.md"):
    cells = [x.strip() for x in line.split("|")[1:-1]]
    if len(cells) == 13 and cells[1] == "f32" and cells[0] in ("indexer", "sampler"):
        times = [float(v) for v in cells[6:11] if v not in ("–", "nan")]
        peer[(cells[0], int(cells[2]), int(cells[3]), int(cells[4]))] = min(times)
for who in ("c2", "base2"):
    t = [load(f"{c_dir}/grid_{who}_{i}.json") for i in (1, 2)]
    for grid in ("indexer", "sampler"):
        rs = sorted((p / math.sqrt(t[0][(n, m, k, -1, False)] * t[1][(n, m, k, -1, False)]), (n, m, k))
                    for (g, n, m, k), p in peer.items() if g == grid)
        gm = math.exp(sum(math.log(r) for r, _ in rs) / len(rs))
        lost = sum(1 for r, _ in rs if r < 1.0)
        print(who, grid, f"{len(rs)} cells, geometric mean {gm:.2f}, {lost} lost, worst {rs[0][0]:.2f} at {rs[0][1]}")

print("## cells: before, now (c/, geometric mean of the two runs), torch.topk (c/'s torch.json)")
torch = {(r["n"], r["m"], r["k"]): r["median_ms"] for r in json.load(open(f"{c_dir}/torch.json")) if not r["sorted"]}
now = [load(f"{c_dir}/grid_c2_{i}.json") for i in (1, 2)]
old = [load(f"{c_dir}/grid_base2_{i}.json") for i in (1, 2)]
cells = [(32, 1 << 21, 2048), (96, 1 << 21, 1024), (256, 1 << 21, 2048), (256, 500000, 2048), (32, 500000, 2048),
         (96, 163840, 1024), (128, 100352, 1024), (8, 1 << 21, 2048), (1, 1 << 24, 1024), (1, 1 << 24, 16384),
         (64, 1 << 20, 1024), (256, 1 << 20, 256), (1024, 1 << 20, 50), (1024, 1 << 18, 1024), (256, 49152, 2048)]
print("| shape | k | before ms | now ms | now / before | torch.topk ms | torch / now |")
for n, m, k in cells:
    key = (n, m, k, -1, False)
    before = math.sqrt(old[0][key] * old[1][key])
    after = math.sqrt(now[0][key] * now[1][key])
    t = torch[(n, m, k)]
    print(f"| {n} x {m} | {k} | {before:.4f} | {after:.4f} | {after / before:.3f} | {t:.4f} | {t / after:.2f}x |")
