#!/usr/bin/env python3
"""The record's table from ragged_search.py's lines: per shape and type, the plain call's time
(the least over the builds), each build's time with lengths all M and with lengths of mean M/4
(the better of its rounds), and the latter over the plain call.

    python3 table.py ab/times.jsonl h23 h24 h25
"""

import collections
import json
import sys


def main() -> None:
    path, builds = sys.argv[1], sys.argv[2:]
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]
    assert all(r["full_is_plain"] and r["quarter_is_cpu"] for r in rows), "an answer differs"
    runs = collections.defaultdict(list)
    for r in rows:
        runs[(r["dtype"], r["n"], r["m"], r["k"], r["label"])].append(r)
    shapes = sorted({key[:4] for key in runs}, key=lambda s: (s[0], s[2], s[1], s[3]))

    def best(shape: tuple, build: str, field: str) -> float:
        return min(r[field] for r in runs[(*shape, build)])

    cols = " | ".join(builds)
    print(
        f"| type | rows × M | k | plain µs | lengths M, µs: {cols} | lengths M/4, µs: {cols} "
        f"| M/4 over plain: {cols} |"
    )
    print("|" + "---|" * (4 + 3 * len(builds)))
    for s in shapes:
        plain = {b: best(s, b, "plain_us") for b in builds}
        full = " | ".join(f"{best(s, b, 'full_us'):.1f}" for b in builds)
        quarter = " | ".join(f"{best(s, b, 'quarter_us'):.1f}" for b in builds)
        ratio = " | ".join(f"{best(s, b, 'quarter_us') / plain[b]:.2f}" for b in builds)
        print(
            f"| {s[0]} | {s[1]} × {s[2]} | {s[3]} | {min(plain.values()):.1f} | {full} | "
            f"{quarter} | {ratio} |"
        )
    print(f"\n{len(rows)} lines, every answer checked")


main()
