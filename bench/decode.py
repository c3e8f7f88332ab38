#!/usr/bin/env python3
"""Decode-step benchmark of ``rtopk.topk`` on the GPU: threshold hints and rows of their own
length (docs/contract.md §5).

The model. A batch of N rows of M float32 scores, drawn standard normal at step 0. Between
two steps every value is redrawn, independently, with probability p (``--drift``, default
0.02; so about p·M values of each row change, from the same distribution) — the scores of an
indexer or a sampler that moves one token further. Every step selects the same k of every
row. A decode loop keeps the last step's per-row threshold (``return_threshold=True``) and
gives it as the next step's ``hint``: the search starts from a bracket around the guess
instead of the row's (min, max). The hint changes only the work, never the answer.

Per step and shape it measures:

* the time of ``rtopk.topk(x, k, sorted=False, return_threshold=True)`` without a hint
  ("plain") and with the previous step's threshold as ``hint`` ("hinted"), and of
  ``torch.topk(x, k)`` as the reference;
* the bisection iteration counts of both (``return_iterations=True``, docs/contract.md §3);
* that the hinted answer is the plain one bit for bit (values, indices, thresholds — of the
  timed calls and of the counted ones) and that its values are ``torch.topk``'s as a multiset.

With ``--lengths`` (on by default), each shape also runs the lengths mode: the same batch
with random lengths (uniform on ``[0, M/2]``, so M/4 on average, a device int32 tensor) against
full length, both plain, and ``torch.topk`` on the full rows; each row's answer is checked
against ``torch.topk`` of its valid prefix.

Timing (GPU time, not the host's): every call is timed alone between two CUDA events; ahead
of the start event the GPU spins (``torch.cuda._sleep``) so the call is queued before the GPU
reaches the event (a call whose start event had already passed is timed again with a longer
spin). Each timed call reads a different copy of the step's input, enough copies to pass
twice the L2 cache, so no call finds its rows in L2. Warm-up calls first (the first call on a
device builds the kernels); the figure is the median of all timed calls (``--reps`` per step,
every step).

Needs only torch (with a CUDA GPU) and the rtopk wheel:

    python3 bench/decode.py                        # every default shape, p = 2 %
    python3 bench/decode.py --drift 0.01 0.02 0.05 --steps 64 --out decode.json
    python3 bench/decode.py --shape 8x131072:2048 --shape 64x128256:50 --no-lengths

Output: a table on stdout and, with ``--out``, the JSON record (every number of the table,
per-step iteration means and times, the device, the versions). The exit status is 1 when any
answer differs (the table says where), 0 otherwise.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import statistics
import sys
import time
from typing import Any, Dict, List, NamedTuple, Optional

import rtopk
import torch

from spin_timing import spin_timed_ms

# Shapes of the two users: a sparse-attention indexer (a query's causal prefix of
# scores, k = 2048 or 512) and an LLM sampler (a batch of vocabulary logits, k = 50).
DEFAULT_SHAPES = (
    ("indexer", 8, 131072, 2048),
    ("indexer", 64, 32768, 2048),
    ("indexer", 64, 32768, 512),
    ("sampler", 64, 128256, 50),
)

# The L2 size when the device does not say (H100: 50 MiB).
DEFAULT_L2 = 50 << 20


class Shape(NamedTuple):
    name: str
    n: int
    m: int
    k: int


def parse_shape(text: str) -> Shape:
    """``NxM:K`` (e.g. ``8x131072:2048``), optionally ``NAME=NxM:K``."""
    name = "custom"
    if "=" in text:
        name, text = text.split("=", 1)
    try:
        dims, k = text.split(":")
        n, m = dims.lower().split("x")
        return Shape(name, int(n), int(m), int(k))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"shape {text!r}: expected NxM:K, e.g. 8x131072:2048"
        ) from None


def time_call(fn: Any) -> float:
    """Microseconds of one call of ``fn`` on the GPU, queued behind a spin so that the host's
    dispatch is not in the figure."""
    return spin_timed_ms(fn) * 1e3


class Rotation:
    """Copies of one input, enough to pass twice the L2 cache: each timed call reads the next
    copy, so none finds its rows in L2."""

    def __init__(self, x: torch.Tensor, l2: int) -> None:
        nbytes = max(x.numel() * x.element_size(), 1)
        count = min(max(math.ceil(2 * l2 / nbytes), 1), 64)
        self.copies = [x] + [x.clone() for _ in range(count - 1)]
        self.next = 0

    def take(self) -> torch.Tensor:
        x = self.copies[self.next]
        self.next = (self.next + 1) % len(self.copies)
        return x


def time_rotated(fn: Any, rot: Rotation, reps: int) -> List[float]:
    """Microseconds of ``reps`` calls of ``fn``, each on the rotation's next copy."""
    return [time_call(lambda: fn(rot.take())) for _ in range(reps)]


def same(a: Any, b: Any) -> bool:
    """Bitwise equality of two tensors (NaN payloads and -0.0 included)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.is_floating_point:
        bits = {2: torch.int16, 4: torch.int32, 8: torch.int64}[a.element_size()]
        return bool(torch.equal(a.view(bits), b.view(bits)))
    return bool(torch.equal(a, b))


def same_multiset(a: torch.Tensor, b: torch.Tensor) -> bool:
    """The rows of ``a`` and ``b`` hold the same values (as multisets, row by row)."""
    return bool(torch.equal(a.sort(dim=-1).values, b.sort(dim=-1).values))


def drift(x: torch.Tensor, p: float, gen: torch.Generator) -> torch.Tensor:
    """The next step's scores: each value redrawn from N(0, 1) with probability ``p``."""
    redraw = torch.rand(x.shape, device=x.device, generator=gen) < p
    fresh = torch.randn(x.shape, device=x.device, generator=gen, dtype=x.dtype)
    return torch.where(redraw, fresh, x)


def median(xs: List[float]) -> float:
    return statistics.median(xs) if xs else math.nan


def decode_run(shape: Shape, p: float, args: argparse.Namespace, l2: int) -> Dict[str, Any]:
    """The decode sequence of one shape and drift: timings, iteration counts, checks."""
    n, m, k = shape.n, shape.m, shape.k
    dev = torch.device(args.device)
    gen = torch.Generator(device=dev).manual_seed(args.seed * 1_000_003 + n * 7919 + m + k)
    dtype = getattr(torch, args.dtype)
    x = torch.randn(n, m, device=dev, generator=gen, dtype=dtype)

    def plain(x: torch.Tensor) -> Any:
        return rtopk.topk(x, k, sorted=args.sorted, return_threshold=True)

    def hinted(x: torch.Tensor, h: torch.Tensor) -> Any:
        return rtopk.topk(x, k, sorted=args.sorted, hint=h, return_threshold=True)

    def counted(x: torch.Tensor, h: Optional[torch.Tensor]) -> Any:
        return rtopk.topk(
            x, k, sorted=args.sorted, hint=h, return_threshold=True, return_iterations=True
        )

    # warm-up: every configuration (the first call on a device builds its kernels)
    prev = plain(x).threshold
    try:
        counted(x, prev)
        counts_with_hint = True
    except ValueError as e:  # a build whose kernel cannot count with a hint: times only
        print(f"note: no iteration counts with hints in this build ({e})", file=sys.stderr)
        counts_with_hint = False
    for _ in range(args.warmup):
        plain(x)
        hinted(x, prev)
        counted(x, None)
        if counts_with_hint:
            counted(x, prev)
        torch.topk(x, k)
    torch.cuda.synchronize()

    t_plain: List[float] = []
    t_hinted: List[float] = []
    t_torch: List[float] = []
    steps: List[Dict[str, Any]] = []
    mismatches: List[str] = []
    its_plain_all: List[float] = []
    its_hinted_all: List[float] = []
    prev = plain(x).threshold
    for step in range(1, args.steps + 1):
        x = drift(x, p, gen)
        rot = Rotation(x, l2)
        h = prev
        sp = time_rotated(plain, rot, args.reps)
        sh = time_rotated(functools.partial(hinted, h=h), rot, args.reps)
        st = time_rotated(lambda x: torch.topk(x, k), rot, args.reps)
        t_plain += sp
        t_hinted += sh
        t_torch += st
        # the answers: the timed configuration and the counted one, with and without the hint
        a, b = plain(x), hinted(x, prev)
        ca = counted(x, None)
        cb = counted(x, prev) if counts_with_hint else ca
        ref = torch.topk(x, k)
        checks = {
            "hinted == plain": same(a.indices, b.indices)
            and same(a.values, b.values)
            and same(a.threshold, b.threshold),
            "counted == plain": same(ca.indices, a.indices)
            and same(cb.indices, a.indices)
            and same(ca.values, a.values)
            and same(cb.values, a.values)
            and same(ca.threshold, a.threshold)
            and same(cb.threshold, a.threshold),
            "values == torch.topk's": same_multiset(a.values, ref.values),
        }
        for what, ok in checks.items():
            if not ok:
                mismatches.append(f"step {step}: {what} fails")
        ip = ca.iterations.float()
        ih = cb.iterations.float() if counts_with_hint else torch.full_like(ip, math.nan)
        its_plain_all.append(float(ip.mean()))
        its_hinted_all.append(float(ih.mean()))
        steps.append(
            {
                "step": step,
                "plain_us": median(sp),
                "hinted_us": median(sh),
                "torch_us": median(st),
                "iterations_plain_mean": float(ip.mean()),
                "iterations_hinted_mean": float(ih.mean()),
                # with each row's own threshold as its hint the contract bounds this by 0;
                # the previous step's may cost more on a row
                "iterations_hinted_max_minus_plain": int((cb.iterations - ca.iterations).max())
                if counts_with_hint
                else None,
                "exact": all(checks.values()),
            }
        )
        prev = a.threshold
    plain_us, hinted_us, torch_us = median(t_plain), median(t_hinted), median(t_torch)
    its_p, its_h = statistics.fmean(its_plain_all), statistics.fmean(its_hinted_all)
    return {
        "shape": shape._asdict(),
        "drift": p,
        "steps": args.steps,
        "reps_per_step": args.reps,
        "plain_us": plain_us,
        "hinted_us": hinted_us,
        "torch_us": torch_us,
        "speedup_hinted": plain_us / hinted_us,
        "iterations_plain_mean": its_p,
        "iterations_hinted_mean": its_h,
        "iterations_ratio": its_h / its_p if its_p else math.nan,
        "iterations_with_hint": counts_with_hint,
        "exact": not mismatches,
        "mismatches": mismatches,
        "per_step": steps,
    }


def lengths_run(shape: Shape, args: argparse.Namespace, l2: int) -> Dict[str, Any]:
    """One batch with random lengths (mean M/4) against full length, and torch.topk."""
    n, m, k = shape.n, shape.m, shape.k
    dev = torch.device(args.device)
    gen = torch.Generator(device=dev).manual_seed(args.seed * 7 + n * 31 + m + k)
    x = torch.randn(n, m, device=dev, generator=gen, dtype=getattr(torch, args.dtype))
    lengths = torch.randint(0, m // 2 + 1, (n,), device=dev, generator=gen, dtype=torch.int32)

    def ragged(x: torch.Tensor) -> Any:
        return rtopk.topk(x, k, sorted=args.sorted, lengths=lengths)

    def full(x: torch.Tensor) -> Any:
        return rtopk.topk(x, k, sorted=args.sorted)

    for _ in range(args.warmup):
        ragged(x)
        full(x)
        torch.topk(x, k)
    torch.cuda.synchronize()
    rot = Rotation(x, l2)
    reps = args.reps * args.steps
    t_ragged = time_rotated(ragged, rot, reps)
    t_full = time_rotated(full, rot, reps)
    t_torch = time_rotated(lambda x: torch.topk(x, k), rot, reps)
    # every row against torch.topk of its valid prefix (values as a multiset), padding after
    got = ragged(x)
    mismatches = []
    for r, length in enumerate(lengths.tolist()):
        take = min(k, length)
        want = torch.topk(x[r, :length], take).values
        row_v, row_i = got.values[r], got.indices[r]
        ok = (
            same_multiset(row_v[:take], want)
            and bool((row_i[:take] >= 0).all())
            and bool((row_i[:take] < length).all())
            and bool((row_i[take:] == -1).all())
            and bool((row_v[take:] == 0).all())
        )
        if not ok:
            mismatches.append(f"row {r} (length {length})")
    full_us, ragged_us, torch_us = median(t_full), median(t_ragged), median(t_torch)
    return {
        "shape": shape._asdict(),
        "mean_length": float(lengths.float().mean()),
        "reps": reps,
        "full_us": full_us,
        "lengths_us": ragged_us,
        "torch_full_us": torch_us,
        "ratio": ragged_us / full_us,
        "exact": not mismatches,
        "mismatches": mismatches,
    }


def versions() -> Dict[str, Any]:
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return {
        "device": props.name,
        "capability": f"{props.major}.{props.minor}",
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "rtopk": getattr(rtopk, "__version__", "?"),
    }


def l2_bytes() -> int:
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return int(getattr(props, "L2_cache_size", 0) or DEFAULT_L2)


def table(decode: List[Dict[str, Any]], ragged: List[Dict[str, Any]]) -> str:
    lines = [
        "decode steps (median GPU µs per call; iterations: mean bisection steps per row)",
        f"{'shape':<26} {'p':>5} {'plain':>9} {'hinted':>9} {'speedup':>8} {'torch':>9} "
        f"{'its':>6} {'its h':>6} {'ratio':>6}  exact",
    ]
    for d in decode:
        s = d["shape"]
        label = f"{s['name']} {s['n']}x{s['m']} k={s['k']}"
        lines.append(
            f"{label:<26} {d['drift']:>5.2f} {d['plain_us']:>9.1f} {d['hinted_us']:>9.1f} "
            f"{d['speedup_hinted']:>7.2f}x {d['torch_us']:>9.1f} "
            f"{d['iterations_plain_mean']:>6.2f} {d['iterations_hinted_mean']:>6.2f} "
            f"{d['iterations_ratio']:>6.2f}  {'yes' if d['exact'] else 'NO'}"
        )
    if ragged:
        lines += [
            "",
            "rows of their own length (mean M/4) against full length (median GPU µs per call)",
            f"{'shape':<26} {'full':>9} {'lengths':>9} {'ratio':>6} {'torch':>9}  exact",
        ]
        for r in ragged:
            s = r["shape"]
            label = f"{s['name']} {s['n']}x{s['m']} k={s['k']}"
            lines.append(
                f"{label:<26} {r['full_us']:>9.1f} {r['lengths_us']:>9.1f} {r['ratio']:>6.3f} "
                f"{r['torch_full_us']:>9.1f}  {'yes' if r['exact'] else 'NO'}"
            )
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--shape",
        action="append",
        type=parse_shape,
        help="NxM:K or NAME=NxM:K, repeatable (default: the indexer and sampler shapes)",
    )
    ap.add_argument(
        "--drift",
        type=float,
        nargs="+",
        default=[0.02],
        help="share of each row's values redrawn between steps (default 0.02)",
    )
    ap.add_argument("--steps", type=int, default=32, help="decode steps per shape (default 32)")
    ap.add_argument("--reps", type=int, default=10, help="timed calls per step (default 10)")
    ap.add_argument("--warmup", type=int, default=3, help="warm-up calls (default 3)")
    ap.add_argument("--dtype", default="float32", choices=["float32", "float16", "bfloat16"])
    ap.add_argument("--sorted", action="store_true", help="sorted=True (default: index order)")
    ap.add_argument("--no-lengths", dest="lengths", action="store_false", help="skip lengths mode")
    ap.add_argument("--device", default="cuda", help="torch device (default cuda)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", help="write the JSON record here")
    args = ap.parse_args(argv)
    if not torch.cuda.is_available():
        print("decode.py needs a CUDA GPU (torch.cuda.is_available() is False)", file=sys.stderr)
        return 2
    if any(p < 0 or p > 1 for p in args.drift) or args.steps < 1 or args.reps < 1:
        ap.error("--drift must be in [0, 1]; --steps and --reps at least 1")
    device = torch.device(args.device)
    if device.type != "cuda":
        ap.error(f"--device {args.device}: expected cuda or cuda:N")
    if device.index is not None:
        torch.cuda.set_device(device)
    shapes = args.shape or [Shape(*s) for s in DEFAULT_SHAPES]
    l2 = l2_bytes()
    started = time.time()
    decode = [decode_run(s, p, args, l2) for s in shapes for p in args.drift]
    ragged = [lengths_run(s, args, l2) for s in shapes] if args.lengths else []
    record = {
        "benchmark": "bench/decode.py",
        "model": "N(0,1) rows; each value redrawn with probability p between steps",
        "config": {
            "steps": args.steps,
            "reps": args.reps,
            "warmup": args.warmup,
            "dtype": args.dtype,
            "sorted": args.sorted,
            "seed": args.seed,
            "l2_bytes": l2,
        },
        "versions": versions(),
        "seconds": time.time() - started,
        "decode": decode,
        "lengths": ragged,
    }
    print(table(decode, ragged))
    for d in decode + ragged:
        for line in d["mismatches"]:
            print(f"MISMATCH {d['shape']}: {line}", file=sys.stderr)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(record, f, indent=1)
    exact = all(d["exact"] for d in decode + ragged)
    return 0 if exact else 1


if __name__ == "__main__":
    sys.exit(main())
