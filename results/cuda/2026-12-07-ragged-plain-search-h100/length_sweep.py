#!/usr/bin/env python3
"""Call e: the GPU time of rows of their own length on one cluster shape as the length falls
(every row of the batch the same length), beside the plain call — where a row of mean length
M/4 came out slower than the full row (record.md, call c); since call f, torch.topk on the
full rows first. bench/decode.py's timing; every answer checked bit for bit against the
package's CPU path. One JSON line a case.

    PYTHONPATH=/tmp/site_NAME:bench python3 length_sweep.py --label NAME
"""

from __future__ import annotations

import argparse
import json
import statistics

import rtopk
import torch
from decode import Rotation, l2_bytes, same, time_rotated

LENGTHS = (32768, 28672, 24576, 20480, 16384, 16383, 12288, 11382, 8192, 8191, 4096, 2049)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--label", required=True)
    ap.add_argument("--reps", type=int, default=15)
    args = ap.parse_args()
    l2, bad, m, k = l2_bytes(), 0, 32768, 2048
    for dtype in (torch.float32, torch.bfloat16):
        for n in (1, 8):
            gen = torch.Generator(device="cuda").manual_seed(n + 7)
            x = torch.randn(n, m, device="cuda", generator=gen, dtype=dtype)
            rot = Rotation(x, l2)
            torch_us = statistics.median(
                time_rotated(lambda x: torch.topk(x, k, sorted=False), rot, args.reps)
            )
            line = {"label": args.label, "dtype": str(dtype).removeprefix("torch.")}
            line.update({"n": n, "m": m, "k": k, "length": "torch.topk", "us": torch_us})
            print(json.dumps(line), flush=True)
            cases = {"plain": None, **{str(v): v for v in LENGTHS}}
            for name, length in cases.items():
                lengths = None
                if length is not None:
                    lengths = torch.full((n,), length, device="cuda", dtype=torch.int32)

                def call(x: torch.Tensor, lengths: torch.Tensor | None = lengths) -> object:
                    return rtopk.topk(x, k, sorted=False, lengths=lengths)

                for _ in range(3):
                    call(x)
                us = statistics.median(time_rotated(call, rot, args.reps))
                got = call(x)
                cpu_len = None if lengths is None else lengths.cpu()
                want = rtopk.topk(x.cpu(), k, sorted=False, lengths=cpu_len)
                ok = same(got.values.cpu(), want.values) and same(got.indices.cpu(), want.indices)
                bad += not ok
                line = {"label": args.label, "dtype": str(dtype).removeprefix("torch.")}
                line.update({"n": n, "m": m, "k": k, "length": name, "us": us, "exact": ok})
                print(json.dumps(line), flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
