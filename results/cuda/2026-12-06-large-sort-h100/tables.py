"""The record's before/after tables from the calls' logs: sorted calls (`bench/sort_step.py`
lines in call a's and call b's `logs.tgz`: the two runs' mean per build) and the radix tier's
package calls (`bench/split_rows.py --grid radix-mid` in call d's `logs.tgz`: new / old time).

    python3 tables.py sort a/logs.tgz sort h0 n1        (call a; `many` for call b's)
    python3 tables.py mid d/logs.tgz f32                (or bf16)
"""

import glob
import json
import math
import sys
import tarfile
import tempfile


def lines(tar: tarfile.TarFile, name: str) -> list[dict]:
    text = tar.extractfile(name).read().decode()  # type: ignore[union-attr]
    return [json.loads(s) for s in text.splitlines() if s.startswith("{")]


def sort_table(tar: tarfile.TarFile, stem: str, old: str, new: str) -> None:
    runs = {b: [lines(tar, f"{stem}_{b}_r{r}.txt") for r in (1, 2)] for b in (old, new)}
    mean = lambda rows, i, key: sum(r[i][key] for r in rows) / len(rows) * 1e3  # noqa: E731
    print("| rows × M | k | before | now | now / before | unsorted | torch.topk sorted | checks |")
    print("|---|---|---|---|---|---|---|---|")
    for i, case in enumerate(runs[old][0]):
        a, b = mean(runs[old], i, "rtopk_sorted_ms"), mean(runs[new], i, "rtopk_sorted_ms")
        torch = (mean(runs[old], i, "torch_sorted_ms") + mean(runs[new], i, "torch_sorted_ms")) / 2
        ok = all(r[i]["check"] for rows in runs.values() for r in rows)
        print(f"| {case['n']} × {case['m']} | {case['k']} | {a:.1f} | {b:.1f} | {b / a:.3f} "
              f"| {mean(runs[new], i, 'rtopk_unsorted_ms'):.1f} | {torch:.1f} | {ok} |")


def mid_table(tar: tarfile.TarFile, dtype: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        tar.extractall(d, filter="data")
        old, new = (json.load(open(glob.glob(f"{d}/mid_{dtype}_{b}/*.json")[0]))["cases"]
                    for b in ("h0", "n2"))
    ratios = []
    for a, b in zip(old, new):
        ratios.append(b["rtopk_ms"] / a["rtopk_ms"])
        print(f"{a['n']:3d} x {a['m']:7d}, k = {a['k']:4d}: {a['rtopk_ms'] * 1e3:6.1f} -> "
              f"{b['rtopk_ms'] * 1e3:6.1f} us  {ratios[-1]:.3f}  checked {a['check']} {b['check']}")
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"{len(ratios)} cells: {geo:.3f} ({min(ratios):.3f}-{max(ratios):.3f})")


if __name__ == "__main__":
    kind, path, *rest = sys.argv[1:]
    with tarfile.open(path) as tar:
        if kind == "sort":
            sort_table(tar, *rest)
        else:
            mid_table(tar, *rest)
