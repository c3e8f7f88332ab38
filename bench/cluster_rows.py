"""Cluster rows on the GPU (docs/kernel.md, "Cluster rows"): every answer against the CPU's.

    python bench/cluster_rows.py check [--quick]

`check` runs shapes the plan gives cluster rows (few rows of 8193 to 262144) through
rtopk.topk on a CUDA tensor and on the same tensor on the host (the row-wise driver's
`bisect`), for every element type of at most 32 bits, both modes, sorted or not, with the
iteration counts, early stopping and a recall target, on rows laced with NaN of both signs and
payloads, +-inf, +-0, subnormals and ties straddling the k-th value: values bit for bit,
indices and counts identical, or the case is reported and the exit status is 1.

Their time: `rtopk bench cuda --grid indexer,sampler` (CUDA events behind a spin kernel, inputs
rotated past L2), beside the peers' (bench/peers).
"""

import argparse
import sys

import numpy as np
import rtopk
import torch

SHAPES = [
    (1, 8193, 7),
    (1, 16384, 512),
    (2, 50_000, 2048),
    (3, 100_000, 1),
    (1, 163_840, 2048),
    (8, 30_001, 300),
    (16, 65_536, 4096),
    (1, 262_144, 262_144),
    (1, 200_003, 200_000),
]
QUICK = SHAPES[:5]
TYPES = [
    torch.float32,
    torch.float16,
    torch.bfloat16,
    torch.int8,
    torch.uint8,
    torch.int16,
    torch.int32,
]


def hostile(n: int, m: int, dtype: torch.dtype, seed: int) -> torch.Tensor:
    """Rows of ties and special values: a tenth of the row on 16 distinct values (ties at the
    k-th value), NaN of both signs and payloads, +-inf, +-0 and subnormals (floats)."""
    g = np.random.default_rng(seed)
    if dtype.is_floating_point:
        x = g.standard_normal((n, m)).astype(np.float32)
        ties = g.random((n, m)) < 0.1
        x[ties] = g.integers(-8, 8, ties.sum()).astype(np.float32) / 4
        bits = x.view(np.uint32)
        specials = np.array(
            [
                0x7FC00000,
                0xFFC00001,
                0x7F800001,
                0x7F800000,
                0xFF800000,
                0x80000000,
                0x00000000,
                0x00000001,
                0x80000010,
            ],
            dtype=np.uint32,
        )
        at = g.random((n, m)) < 0.002
        bits[at] = specials[g.integers(0, len(specials), at.sum())]
        t = torch.from_numpy(x)
        return t.to(dtype)
    info = torch.iinfo(dtype)
    lo, hi = max(info.min, -1000), min(info.max, 1000)
    ints = g.integers(lo, hi + 1, (n, m))
    ints[:, :: max(1, m // 7)] = info.max
    ints[:, 1 :: max(1, m // 5)] = info.min
    return torch.from_numpy(ints).to(dtype)


def bits(t: torch.Tensor) -> torch.Tensor:
    if t.dtype.is_floating_point:
        return t.view({2: torch.int16, 4: torch.int32}[t.element_size()])
    return t


def same(got: tuple, want: tuple) -> bool:
    if not torch.equal(bits(got[0].cpu()), bits(want[0])):
        return False
    if not torch.equal(got[1].cpu().to(torch.int64), want[1].to(torch.int64)):
        return False
    if len(got) > 2:
        return torch.equal(got[2].cpu().to(torch.int64), want[2].to(torch.int64))
    return True


def check(quick: bool) -> int:
    cases = bad = 0
    for n, m, k in QUICK if quick else SHAPES:
        for dtype in TYPES[:3] if quick else TYPES:
            x = hostile(n, m, dtype, seed=n * 7 + m + k)
            xc = x.cuda()
            for kw in (
                {"largest": True, "sorted": False, "return_iterations": True},
                {"largest": False, "sorted": True},
                {"largest": True, "sorted": True, "max_iter": 3},
                {"largest": True, "sorted": False, "recall": 0.9},
            ):
                cases += 1
                try:
                    want = rtopk.topk(x, k, **kw)
                    got = rtopk.topk(xc, k, **kw)
                except Exception as e:  # reported, counted, never hidden
                    bad += 1
                    print(f"ERROR {n}x{m} k={k} {dtype} {kw}: {e!r}"[:300])
                    continue
                if not same(tuple(got), tuple(want)):
                    bad += 1
                    print(f"MISMATCH {n}x{m} k={k} {dtype} {kw}")
    print(f"check: {cases} cases, {bad} mismatches or errors")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["check"])
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    return check(a.quick)


if __name__ == "__main__":
    sys.exit(main())
