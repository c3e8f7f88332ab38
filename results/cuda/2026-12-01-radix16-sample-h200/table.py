"""The record's table: each shape and type, the wheel before (HEAD's gate) and the one whose
sampled radix tier takes 16-bit rows ("now"), geometric mean of the call's two alternated runs
each, torch.topk (the last run's) beside them; the geometric mean of now / before.

    python3 table.py LOGS_DIR    (old_{1,2}.json, new_{1,2}.json; torch_ms in new_2.json)"""
import json
import math
import sys

d = sys.argv[1]


def load(f):
    return {(r["n"], r["m"], r["k"], r["dtype"]): r for r in json.load(open(f))["rows"]}


new = [load(f"{d}/new_{i}.json") for i in (1, 2)]
old = [load(f"{d}/old_{i}.json") for i in (1, 2)]
print("| shape | k | dtype | before µs | now µs | now / before | torch.topk µs | torch / now | checked |")
print("|---|---|---|---|---|---|---|---|---|")
ratios = []
for key in new[0]:
    n, m, k, t = key
    nw = math.sqrt(new[0][key]["rtopk_ms"] * new[1][key]["rtopk_ms"])
    od = math.sqrt(old[0][key]["rtopk_ms"] * old[1][key]["rtopk_ms"])
    tm = new[1][key].get("torch_ms")
    checks = {r[key]["check"] for r in new + old}
    ratios.append(nw / od)
    tc = f"{1000 * tm:.1f} | {tm / nw:.2f}×" if tm else "– | –"
    print(f"| {n} × 2^{m.bit_length() - 1} | {k} | {t} | {1000 * od:.1f} | {1000 * nw:.1f} | {nw / od:.3f} | {tc} | {'/'.join(sorted(checks))} |")
g = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
print(f"\n{len(ratios)} cells: now / before geometric mean {g:.4f}, range {min(ratios):.3f}–{max(ratios):.3f}")
