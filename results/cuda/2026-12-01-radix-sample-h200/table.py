"""The record's table: every cell of the call's grids with at most 16 rows of 2^22 or more (the
rows the sampled radix select can take), before (4437bfc's build) and now, geometric mean of
the call's two runs each, the share of the read bandwidth now (`rtopk bench cuda`'s
read_bw_fraction: the input's bytes over the time, against the device's measured read
bandwidth), torch.topk in the same call; then the geometric mean of now / before over every
cell of each grid.

    python3 table.py LOGS_DIR    (grid_new_{1,2}.json, grid_old_{1,2}.json, torch.json)"""
import json
import math
import sys

d = sys.argv[1]


def load(f):
    return {(r["n"], r["m"], r["k"], r["sorted"], r["max_iter"]): r for r in json.load(open(f))}


new = [load(f"{d}/grid_new_{i}.json") for i in (1, 2)]
old = [load(f"{d}/grid_old_{i}.json") for i in (1, 2)]
torch = {(r["n"], r["m"], r["k"], r.get("sorted", False)): r["median_ms"] for r in json.load(open(f"{d}/torch.json"))}


def geo(runs, key, field="median_ms"):
    return math.sqrt(runs[0][key][field] * runs[1][key][field])


print("| shape | k | sorted | before ms | now ms | now / before | read bandwidth now | torch.topk ms | torch / now |")
print("|---|---|---|---|---|---|---|---|---|")
ratios = []
for key in sorted(new[0], key=lambda t: (t[0], t[1], t[2], t[3], -1 if t[4] is None else t[4])):
    if key not in old[0] or key not in new[1] or key not in old[1]:
        continue
    n, m, k, s, it = key
    nw, od = geo(new, key), geo(old, key)
    ratios.append(nw / od)
    if it is not None or not (n <= 16 and m >= 1 << 22):
        continue
    bw = geo(new, key, "read_bw_fraction")
    t = torch.get((n, m, k, s))
    tc = f"{t:.4f} | {t / nw:.2f}×" if t else "– | –"
    print(f"| {n} × 2^{m.bit_length() - 1} | {k} | {'yes' if s else 'no'} | {od:.4f} | {nw:.4f} | {nw / od:.3f} | {bw:.0%} | {tc} |")
g = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
print(f"\nall {len(ratios)} cells: now / before geometric mean {g:.4f}, range {min(ratios):.3f}–{max(ratios):.3f}")
