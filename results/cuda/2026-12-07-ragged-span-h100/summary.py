#!/usr/bin/env python3
"""Call a's lines, one a case, from the step logs in a folder (stdout of the device call)."""

from __future__ import annotations

import glob
import json
import sys


def lines(pattern: str) -> list:
    out = []
    for f in sorted(glob.glob(pattern)):
        for line in open(f):
            if line.startswith("{"):
                out.append(json.loads(line))
    return out


def main() -> None:
    d = sys.argv[1]
    for r in lines(f"{d}/sweep_*.txt"):
        ok = "" if r.get("exact", True) else " WRONG"
        print(r["label"], r["dtype"], r["n"], r["length"], f"{r['us']:.1f}{ok}")
    for r in lines(f"{d}/time_*.txt"):
        ok = "" if r["full_is_plain"] and r["quarter_is_cpu"] else " WRONG"
        print(
            r["label"],
            r["dtype"],
            r["n"],
            r["m"],
            r["k"],
            "plain/full/quarter/torch",
            " ".join(f"{r[c + '_us']:.1f}" for c in ("plain", "full", "quarter", "torch")) + ok,
        )
    for r in lines(f"{d}/loads_*.txt"):
        us = " ".join(
            f"{c}={r[c + '_us']:.1f}"
            for c in ("plain", "own", "whole_groups", "torch")
            if c + "_us" in r
        )
        print(r["label"], r["dtype"], r["n"], r["m"], r["k"], us, r["exact"])


if __name__ == "__main__":
    main()
