#!/usr/bin/env python3
"""Split rows under compute-sanitizer: a few small launches of rtopk.topk on CUDA
tensors that take the split route (no iteration counts), each checked against the CPU's
`bisect`: a partial last chunk, a last chunk joined to the one before, N = 1, k at a quarter of
the chunk (the most a chunk takes), a second stage split again, smallest mode, sorted output.

    compute-sanitizer --tool memcheck|racecheck|synccheck|initcheck python3 bench/sanitize_split.py
"""

from __future__ import annotations

import sys

import numpy as np
import rtopk
import torch

SHAPES = [
    (1, 10_000, 1),
    (3, 10_000, 100),
    (2, 8200, 200),
    (1, 65_536, 256),
    (5, 9000, 512),
    (2, 100_000, 1000),
    (1, 1 << 20, 256),
]


def main() -> int:
    rng = np.random.default_rng(3)
    bad = 0
    for i, (n, m, k) in enumerate(SHAPES):
        x = (
            rng.integers(-3, 4, size=(n, m)).astype(np.float32)
            if i % 2
            else rng.standard_normal((n, m)).astype(np.float32)
        )
        largest, srt = i % 3 != 1, i % 2 == 0
        got = rtopk.topk(torch.from_numpy(x).cuda(), k, largest=largest, sorted=srt)
        want = rtopk.topk(torch.from_numpy(x), k, largest=largest, sorted=srt, algo="bisect")
        gi, wi = got.indices.cpu().numpy(), want.indices.numpy()
        same = np.array_equal(gi, wi) if srt else np.array_equal(np.sort(gi, 1), np.sort(wi, 1))
        print(f"N={n} M={m} k={k} largest={largest} sorted={srt}: {'ok' if same else 'MISMATCH'}")
        bad += not same
    torch.cuda.synchronize()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
