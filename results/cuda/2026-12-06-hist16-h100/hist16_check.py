#!/usr/bin/env python3
"""16-bit cluster rows searched by two histograms of their keys' bytes (docs/kernel.md,
"Cluster rows", **16-bit rows by histograms**).

    python3 hist16_check.py check OUT.jsonl [--block]
        every answer on the GPU against the package's CPU path (topk-ref's rows), bit for bit:
        f16 and bf16; normal rows, ties, rows with NaN of both signs and payloads, infinities,
        zeros of both signs and subnormals; k from 1 to M; largest and smallest; sorted or not.
        --block: shapes of block rows and split rows (their chunks and second stages) instead.
    python3 hist16_check.py time OUT.jsonl REPS [DTYPES] [--unsorted] [--shapes N:M,...]
        GPU time of plain calls on few long rows (CUDA events behind a spin, inputs rotated past
        L2, median of REPS) and torch.topk's on the same tensors, sorted (both libraries'
        default) or not; normal rows.
"""

from __future__ import annotations

import json
import statistics
import sys

import rtopk
import torch

sys.path.insert(0, "bench")
from spin_timing import spin_timed_ms  # noqa: E402

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}
# NaN with a payload, -NaN with another, +-inf, -0.0, the least subnormals of both signs
SPECIALS = {
    "f16": [0x7E01, 0xFE10, 0x7C00, 0xFC00, 0x8000, 0x0001, 0x8003],
    "bf16": [0x7FC1, 0xFFA0, 0x7F80, 0xFF80, 0x8000, 0x0001, 0x8003],
}
CHECKS = [
    (1, 20001, (1, 512, 20000, 20001)),
    (2, 40003, (2048, 40002)),
    (1, 100000, (1, 2048, 99999)),
    (8, 100000, (512,)),
    (1, 163840, (2048,)),
    (3, 262144, (64,)),
    (1, 500000, (1024,)),
]
BLOCKS = [
    (64, 4001, (1, 300, 4000)),
    (16, 16384, (2048, 16383)),
    (256, 16384, (512,)),
    (128, 32000, (64, 32000)),
    (96, 49152, (2048,)),
    (32, 100000, (1, 2048)),
    (8, 500000, (1024,)),
]
TIMES = [(n, m) for n in (1, 2, 8, 16) for m in (32000, 49152, 100000, 163840, 262144, 500000)]


def rows(dist: str, n: int, m: int, dname: str, g: torch.Generator) -> torch.Tensor:
    dtype = DTYPES[dname]
    if dist == "ties":
        x = (torch.randint(0, 6, (n, m), generator=g) * 0.5).to(dtype)
    else:
        x = torch.randn(n, m, generator=g).to(dtype)
    if dist == "hostile":
        bits = x.view(torch.int16).flatten()
        specials = torch.tensor(SPECIALS[dname], dtype=torch.int32)
        at = torch.arange(0, n * m, 41)
        bits[at] = specials[(at // 41) % len(specials)].to(torch.int16)
    return x


def same(a: torch.Tensor, b: torch.Tensor) -> bool:
    return bool(torch.equal(a.cpu().view(torch.int16), b.cpu().view(torch.int16)))


def check(out, shapes) -> int:  # type: ignore[no-untyped-def]
    failures = 0
    g = torch.Generator().manual_seed(43)
    for dname in DTYPES:
        for dist in ("normal", "ties", "hostile"):
            for n, m, ks in shapes:
                xc = rows(dist, n, m, dname, g)
                x = xc.cuda()
                for k in ks:
                    for largest, sort in ((True, False), (False, True)):
                        c = rtopk.topk(xc, k, largest=largest, sorted=sort)
                        r = rtopk.topk(x, k, largest=largest, sorted=sort)
                        torch.cuda.synchronize()
                        ok = same(c.values, r.values) and torch.equal(c.indices, r.indices.cpu())
                        failures += not ok
                        row = {"dtype": dname, "dist": dist, "n": n, "m": m, "k": k,
                               "largest": largest, "sorted": sort, "ok": ok}
                        out.write(json.dumps(row) + "\n")
                        if not ok:
                            print(row, flush=True)
    return failures


def timed(fn, reps: int) -> float:  # type: ignore[no-untyped-def]
    for _ in range(3):
        fn(0)
    return statistics.median(spin_timed_ms(lambda: fn(i)) for i in range(reps))


def time(out, reps: int, dtypes: list[str], sort: bool, shapes) -> None:  # type: ignore[no-untyped-def]
    for dname in dtypes:
        for n, m in shapes:
            copies = max(2, -(-2 * 50 * 2**20 // (n * m * 2)))
            xs = [torch.randn(n, m, device="cuda").to(DTYPES[dname]) for _ in range(copies)]
            for k in (64, 512, 2048):
                ours = timed(lambda i: rtopk.topk(xs[i % copies], k, sorted=sort), reps)
                theirs = timed(lambda i: torch.topk(xs[i % copies], k, sorted=sort), reps)
                row = {"dtype": dname, "n": n, "m": m, "k": k, "sorted": sort, "rtopk_ms": ours,
                       "torch_ms": theirs}
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(row, flush=True)


def main() -> int:
    with open(sys.argv[2], "w") as out:
        if sys.argv[1] == "check":
            failures = check(out, BLOCKS if "--block" in sys.argv else CHECKS)
            print(f"failures: {failures}")
            return 1 if failures else 0
        dtypes = sys.argv[4].split(",") if len(sys.argv) > 4 else list(DTYPES)
        shapes = TIMES
        if "--shapes" in sys.argv:
            spec = sys.argv[sys.argv.index("--shapes") + 1]
            shapes = [(int(a), int(b)) for a, b in (p.split(":") for p in spec.split(","))]
        time(out, int(sys.argv[3]), dtypes, "--unsorted" not in sys.argv, shapes)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
