#!/usr/bin/env python3
"""Join `rtopk bench cuda --json` and `bench/torch_topk.py` output into a Markdown report.

    python3 bench/cuda_report.py RTOPK.json TORCH.json --read-gbps G --date D --command C \
        [--idle RTOPK_IDLE.json TORCH_IDLE.json] > report.md

--idle adds the RTop-K grid timed from an idle GPU (both sides' `--idle-start`), the method of
earlier records, whose figures include the host's launch latency.
"""

import argparse
import json
import math
from collections import defaultdict


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def with_outputs(r):
    """Percent of the read bandwidth, counting the outputs' bytes as well as the input's."""
    return 100 * r["total_gbps"] * r["read_bw_fraction"] / r["gbps"]


def no_search_ceiling(grid, es, speedup):
    """The grid's geometric mean with max_iter = 0: no counting pass at all, the load and a
    selection of the first k elements by index. No search, however fast, brings the exact
    kernel above it."""
    keys = [k for k in grid if 0 in es[k]]
    if not keys:
        return []
    by_n = ", ".join(
        f"2^{n.bit_length() - 1} {geomean([speedup(k, es[k][0]) for k in keys if k[0] == n]):.1f}×"
        for n in sorted({k[0] for k in keys})
    )
    return [
        f"Ceiling for any search: the same grid with max_iter = 0 (load, no counting pass, "
        f"the first k elements by index selected) reaches "
        f"**{geomean([speedup(k, es[k][0]) for k in keys]):.1f}×** over torch.topk "
        f"(by N: {by_n}).",
        "",
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rtopk_json")
    ap.add_argument("torch_json")
    ap.add_argument("--read-gbps", type=float, required=True)
    ap.add_argument("--date", required=True)
    ap.add_argument("--command", required=True)
    ap.add_argument("--idle", nargs=2, metavar=("RTOPK_IDLE", "TORCH_IDLE"))
    a = ap.parse_args()
    ours = json.load(open(a.rtopk_json))
    torch = {(t["n"], t["m"], t["k"], t["sorted"]): t for t in json.load(open(a.torch_json))}
    dev = ours[0]["device"]
    tv = next(iter(torch.values()))["torch"]
    out = [
        f"# RTop-K CUDA kernel vs torch.topk — {dev}, {a.date}",
        "",
        f"Command: `{a.command}`. torch {tv}. Normal data, inputs rotated past L2, CUDA events, "
        f"median of {ours[0]['reps']} after 2 warm-ups, each timed launch queued behind a spin "
        f"kernel so that the host's launch latency stays out of both sides' figures. Read "
        f"bandwidth measured in the same run: **{a.read_gbps:.0f} GB/s**. GB/s counts the "
        f'input bytes (read once); "with outputs" also counts the bytes every top-k '
        f"writes (k values and k indices per row, and the kernel's iteration count per row) "
        f"against the same read bandwidth.",
        "",
    ]
    exact = {
        (r["n"], r["m"], r["k"]): r for r in ours if r["max_iter"] is None and not r.get("sorted")
    }
    srt = {(r["n"], r["m"], r["k"]): r for r in ours if r["max_iter"] is None and r.get("sorted")}
    es = defaultdict(dict)
    for r in ours:
        if r["max_iter"] is not None and not r.get("sorted"):
            es[(r["n"], r["m"], r["k"])][r["max_iter"]] = r

    def speedup(key, r, sorted_=False):
        t = torch.get((*key, sorted_))
        return t["median_ms"] / r["median_ms"] if t else float("nan")

    grid = [key for key in exact if key[1] in (256, 512, 768) and key[0] >= 1 << 14]
    out += [
        "## Exact mode, the RTop-K grid (N × M × k)",
        "",
        "| N | M | k | ours ms | torch ms (sorted=False) | speedup | GB/s | % of read BW | "
        "% with outputs |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for key in sorted(grid):
        r = exact[key]
        t = torch.get((*key, False))
        out.append(
            f"| {key[0]} | {key[1]} | {key[2]} | {r['median_ms']:.4f} | "
            f"{t['median_ms']:.4f} | {speedup(key, r):.1f}× | {r['gbps']:.0f} | "
            f"{100 * r['read_bw_fraction']:.1f}% | {with_outputs(r):.1f}% |"
        )
    out += [
        "",
        f"**Geometric-mean speedup over the grid (exact): "
        f"{geomean([speedup(k, exact[k]) for k in grid]):.1f}×** "
        f"(sorted output vs torch.topk(sorted=True): "
        f"{geomean([speedup(k, srt[k], True) for k in grid if k in srt]):.1f}×)",
        "",
    ]
    out += no_search_ceiling(grid, es, speedup)

    out += [
        "## Table 3 on this GPU: average speedup over torch.topk by M and max_iter",
        "",
        "| M | " + " | ".join(str(i) for i in range(2, 9)) + " | exact |",
        "|---|" + "---|" * 8,
    ]
    for m in (256, 512, 768):
        keys = [k for k in grid if k[1] == m]
        cells = []
        for it in range(2, 9):
            cells.append(f"{sum(speedup(k, es[k][it]) for k in keys) / len(keys):.2f}")
        cells.append(f"{sum(speedup(k, exact[k]) for k in keys) / len(keys):.2f}")
        out.append(f"| {m} | " + " | ".join(cells) + " |")

    out += [
        "",
        "## Where the time goes (N = 2^20, exact)",
        "",
        "load = input bytes / measured read bandwidth; no-search = the kernel with "
        "max_iter = 0 (no counting pass: the selection takes the first k elements by index); "
        "exact − no-search = the search, and the difference between the two selections. "
        "`bench/stage_breakdown.py` on an Nsight Compute profile splits the kernel's "
        "instructions by stage.",
        "",
        "| M | k | exact ms | load ms | no-search − load ms | exact − no-search ms | share | "
        "% with outputs: exact / no-search |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for key in sorted(k for k in grid if k[0] == 1 << 20):
        r, z = exact[key], es[key].get(0)
        if not z:
            continue
        load = key[0] * key[1] * 4 / (a.read_gbps * 1e9) * 1e3
        search = r["median_ms"] - z["median_ms"]
        out.append(
            f"| {key[1]} | {key[2]} | {r['median_ms']:.4f} | {load:.4f} | "
            f"{z['median_ms'] - load:.4f} | {search:.4f} | {100 * search / r['median_ms']:.0f}% | "
            f"{with_outputs(r):.1f}% / {with_outputs(z):.1f}% |"
        )

    longer = sorted(k for k in exact if k[1] > 768)
    if longer:
        out += [
            "",
            "## Longer rows (Appendix B and beyond), exact",
            "",
            "| N | M | k | ours ms | torch ms | speedup | GB/s | % of read BW | % with outputs |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for key in longer:
            r = exact[key]
            t = torch.get((*key, False))
            out.append(
                f"| {key[0]} | {key[1]} | {key[2]} | {r['median_ms']:.3f} | "
                f"{t['median_ms']:.3f} | {speedup(key, r):.1f}× | {r['gbps']:.0f} | "
                f"{100 * r['read_bw_fraction']:.1f}% | {with_outputs(r):.1f}% |"
            )
    if srt:
        out += [
            "",
            "## Sorted output, exact (the device sort's launch included)",
            "",
            "Each row's k results in docs/contract.md §1's sorted order, "
            "against torch.topk(sorted=True) on the same shapes; sort = sorted − index-order time.",
            "",
            "| N | M | k | ours sorted ms | sort ms | torch ms (sorted=True) | speedup |",
            "|---|---|---|---|---|---|---|",
        ]
        for key in sorted(k for k in srt if k[0] == 1 << 20 or k[1] > 768):
            r, u = srt[key], exact.get(key)
            sort_ms = f"{r['median_ms'] - u['median_ms']:.3f}" if u else "–"
            t = torch.get((*key, True))
            out.append(
                f"| {key[0]} | {key[1]} | {key[2]} | {r['median_ms']:.3f} | {sort_ms} | "
                f"{t['median_ms']:.3f} | {speedup(key, r, True):.1f}× |"
            )
    if a.idle:
        out += idle_section(grid, exact, torch, *a.idle)
    print("\n".join(out))


def idle_section(grid, exact, torch, rtopk_idle, torch_idle):
    """The grid's geometric-mean speedup by N under both timing methods."""
    ours_i = {
        (r["n"], r["m"], r["k"]): r
        for r in json.load(open(rtopk_idle))
        if r["max_iter"] is None and not r.get("sorted")
    }
    torch_i = {(t["n"], t["m"], t["k"]): t for t in json.load(open(torch_idle)) if not t["sorted"]}
    out = [
        "",
        "## Timing method: queued vs idle start (the RTop-K grid, exact)",
        "",
        "Idle start: each launch timed from an idle GPU, so the figure includes the host's time "
        "to submit it (earlier records). Geometric means over the grid's cells of each N; "
        "ms columns are the medians at k = 32, M = 256.",
        "",
        "| N | speedup queued | speedup idle start | ours ms queued / idle | "
        "torch ms queued / idle |",
        "|---|---|---|---|---|",
    ]
    both = [k for k in grid if k in ours_i and k in torch_i]
    for n in [*sorted({k[0] for k in both}), None]:
        keys = [k for k in both if n is None or k[0] == n]
        q = geomean([torch[(*k, False)]["median_ms"] / exact[k]["median_ms"] for k in keys])
        i = geomean([torch_i[k]["median_ms"] / ours_i[k]["median_ms"] for k in keys])
        c = (n, 256, 32)
        ms = (
            f"{exact[c]['median_ms']:.4f} / {ours_i[c]['median_ms']:.4f} | "
            f"{torch[(*c, False)]['median_ms']:.4f} / {torch_i[c]['median_ms']:.4f}"
            if n is not None and c in both
            else "– | –"
        )
        out.append(f"| {n if n is not None else 'all'} | {q:.1f}× | {i:.1f}× | {ms} |")
    return out


if __name__ == "__main__":
    main()
