"""The sort kernel's time per case from two Nsight Compute CSVs of p.py (before, after): the
median of each case's five sort launches (`rtopk_sort_*`), in p.py's case order.

    python3 table.py BEFORE.csv AFTER.csv [ab|c]
"""

import csv
import statistics
import sys

sys.argv += ["ab"] * (4 - len(sys.argv))
sys.path.insert(0, __file__.rsplit("/", 1)[0])
import ast  # noqa: E402

src = open(__file__.rsplit("/", 1)[0] + "/p.py").read()
tree = ast.parse(src)
consts = {t.targets[0].id: t.value for t in tree.body if isinstance(t, ast.Assign)}
CASES = ast.literal_eval(consts["CASES"])
CASES_C = CASES + ast.literal_eval(consts["CASES_C"].right)
cases = CASES if sys.argv[3] == "ab" else CASES_C


def sorts(path: str) -> list[float]:
    rows = list(csv.reader(line for line in open(path) if line.startswith('"')))
    h = rows[0]
    ki, vi = h.index("Kernel Name"), h.index("Metric Value")
    return [float(r[vi].replace(",", "")) / 1000 for r in rows[1:] if "sort" in r[ki]]


a, b = sorts(sys.argv[1]), sorts(sys.argv[2])
print("| rows × M, k | sort kernel before (µs) | after (µs) | after / before |")
print("|---|---|---|---|")
for i, (n, m, k) in enumerate(cases):
    x, y = statistics.median(a[5 * i : 5 * i + 5]), statistics.median(b[5 * i : 5 * i + 5])
    print(f"| {n} × {m}, k = {k} | {x:.2f} | {y:.2f} | {y / x:.2f} |")
