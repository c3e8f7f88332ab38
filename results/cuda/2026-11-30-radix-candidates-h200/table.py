"""The record's table: each vector cell the radix select takes (one row of 2^22 to 2^28 with k
of 4096 and more), before (da4e31a's build) and now, geometric mean of the call's two runs
each, torch.topk in the same call, and CUB DeviceTopK as recorded on the same kind of device
on 2026-11-28 (results/cuda/2026-11-28-large-k-h200/peers/, unsorted, f32).

    python3 table.py LOGS_DIR NEW OLD    (grid_NEW_1.json, grid_NEW_2.json, grid_OLD_*.json, torch.json)"""
import json
import sys

d, new_name, old_name = sys.argv[1:4]


def load(f):
    return {(r["n"], r["m"], r["k"], r["sorted"]): r["median_ms"] for r in json.load(open(f)) if r["max_iter"] is None}


def geo(runs, key):
    return (runs[0][key] * runs[1][key]) ** 0.5


new = [load(f"{d}/grid_{new_name}_{i}.json") for i in (1, 2)]
old = [load(f"{d}/grid_{old_name}_{i}.json") for i in (1, 2)]
torch = {(r["n"], r["m"], r["k"], r.get("sorted", False)): r["median_ms"] for r in json.load(open(f"{d}/torch.json"))}
cub = {}
for line in open("results/cuda/2026-11-28-large-k-h200/peers/f32_vector_k.jsonl"):
    r = json.loads(line)
    if r["peer"] == "cub_topk" and "median_ms" in r:
        cub[(r["n"], r["m"], r["k"])] = r["median_ms"]
print("| shape | k | sorted | before ms | now ms | now / before | torch.topk ms | torch / now | CUB DeviceTopK ms (2026-11-28) | CUB / now |")
print("|---|---|---|---|---|---|---|---|---|---|")
for key in sorted(new[0]):
    n, m, k, s = key
    if not (n == 1 and m >= 1 << 22 and k >= 4096):
        continue
    nw, od = geo(new, key), geo(old, key)
    t = torch.get(key)
    c = cub.get((n, m, k)) if not s else None
    tc = f"{t:.4f} | {t / nw:.2f}×" if t else "– | –"
    cc = f"{c:.4f} | {c / nw:.2f}" if c else "– | –"
    print(f"| {n} × 2^{m.bit_length() - 1} | {k} | {'yes' if s else 'no'} | {od:.4f} | {nw:.4f} | {nw / od:.3f} | {tc} | {cc} |")
