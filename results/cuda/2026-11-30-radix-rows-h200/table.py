"""The record's table: each cell the radix select takes (one row of 2^22 to 2^28 with k of
4096 and more, the vector and vector-k grids), before (c2) and now (rx4), geometric mean of
call d's two runs, torch.topk in the same call, and CUB DeviceTopK as recorded on the same
kind of device on 2026-11-28 (results/cuda/2026-11-28-large-k-h200/peers/, unsorted, f32).

    python3 table.py D_LOGS_DIR"""
import json
import sys

d = sys.argv[1]


def load(f):
    return {(r["n"], r["m"], r["k"], r["sorted"]): r["median_ms"] for r in json.load(open(f)) if r["max_iter"] is None}


new = [load(f"{d}/grid_rx4_{i}.json") for i in (1, 2)]
old = [load(f"{d}/grid_c2_{i}.json") for i in (1, 2)]
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
    if not (n == 1 and m >= 1 << 20 and k >= 4096):
        continue
    nw = (new[0][key] * new[1][key]) ** 0.5
    od = (old[0][key] * old[1][key]) ** 0.5
    t = torch.get(key)
    c = cub.get((n, m, k)) if not s else None
    tc = f"{t:.4f} | {t / nw:.2f}×" if t else "– | –"
    cc = f"{c:.4f} | {c / nw:.2f}" if c else "– | –"
    print(f"| {n} × 2^{m.bit_length() - 1} | {k} | {'yes' if s else 'no'} | {od:.4f} | {nw:.4f} | {nw / od:.3f} | {tc} | {cc} |")
