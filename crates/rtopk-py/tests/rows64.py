"""Rows of float64 and int64 (the kernel's 64-bit wide rows, docs/kernel.md "64-bit rows") and
the per-row inputs of docs/contract.md §5 built to break them: hostile 64-bit rows, lengths and
a k per row with their edges, and hints of every kind. Shared by the NumPy, torch CPU and
torch CUDA tests."""

from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np
from oracle import hostile_matrix


def wide_matrix(n: int, m: int, dtype: Any, seed: int) -> Any:
    """``(n, m)`` float64 or int64 rows (``dtype``: NumPy's or torch's) built to break a 64-bit
    kernel: the float64 rows are hostile float32 rows (NaN of both signs and payloads, ±inf,
    ±0, subnormals, ties) widened, a quarter of them given low bits of their own (equal as
    float32, apart as float64), with float64 subnormals of both signs and the ends; the int64
    rows mix the ends, 0, ±1, ties, values apart in their low bits only and any 64 bits."""
    rng = np.random.default_rng(seed)
    pick = rng.random((n, m))
    if "float64" in str(dtype):
        with np.errstate(invalid="ignore"):  # signalling NaNs widen quiet, payloads kept
            x = hostile_matrix(n, m, "hostile", seed).astype(np.float64)
        jitter = rng.integers(1, 1 << 28, (n, m), dtype=np.uint64)
        apart = np.isfinite(x) & (x != 0) & (pick < 0.25)
        x = np.where(apart, (x.view(np.uint64) ^ jitter).view(np.float64), x)
        sub = rng.integers(1, 1 << 52, (n, m), dtype=np.uint64).view(np.float64)
        ends = np.array([np.finfo(np.float64).max, np.finfo(np.float64).min, -sub[0, 0]])
        x = np.where(pick > 0.95, sub * np.where(pick > 0.975, -1.0, 1.0), x)
        x = np.where((pick > 0.9) & (pick < 0.92), ends[rng.integers(0, 3, (n, m))], x)
        return np.ascontiguousarray(x)
    info = np.iinfo(np.int64)
    edges = np.array([info.min, info.min + 1, -1, 0, 1, info.max - 1, info.max], dtype=np.int64)
    anything = rng.integers(info.min, info.max, (n, m), dtype=np.int64, endpoint=True)
    ties = rng.integers(-2, 3, (n, m)).astype(np.int64)
    low = (1 << 40) + rng.integers(0, 64, (n, m)).astype(np.int64)
    x = np.where(
        pick < 0.2,
        edges[rng.integers(0, len(edges), (n, m))],
        np.where(pick < 0.5, ties, np.where(pick < 0.6, low, anything)),
    )
    return np.ascontiguousarray(x, dtype=np.int64)


HINT_KINDS = 13


def hint_64(kind: int, own: np.float32, r: int, rng: Any) -> np.float32:
    """The hint of kind ``kind`` (``0 <= kind < HINT_KINDS``) for row ``r`` whose own
    threshold is ``own``: NaN of both signs, +-inf, the row's own threshold (twice as often),
    a few ulps above or below it, a percent off, any bits, beyond +-2^63 (past every int64;
    -2^63 is int64's least value exactly), fractional (an int64 row tests the integer next to
    the hint), +-0."""
    finite = bool(np.isfinite(own))
    bits = int(np.float32(own).view(np.uint32))
    ulps = 1 + r % 4
    beyond = [1e19, -1e19, 2.0**63, -(2.0**63), 3e38, -3e38]
    if kind == 0:
        return np.float32("nan")
    if kind == 1:
        return np.array([0xFFC04321], dtype=np.uint32).view(np.float32)[0]  # -NaN, a payload
    if kind in (2, 3):
        return np.float32(np.inf if kind == 2 else -np.inf)
    if kind in (4, 5) or (kind in (6, 7, 8) and not finite):
        return np.float32(own)
    if kind in (6, 7):
        near = (bits + ulps if kind == 6 else bits - ulps) & 0xFFFF_FFFF
        return np.array([near], dtype=np.uint32).view(np.float32)[0]
    if kind == 8:
        return np.float32(float(own) * 1.01 + 0.25)
    if kind == 9:
        return np.array([rng.integers(0, 1 << 32)], dtype=np.uint32).view(np.float32)[0]
    if kind == 10:
        return np.float32(beyond[r % len(beyond)])
    if kind == 11:
        return np.float32(np.trunc(own) + 0.5) if finite and abs(own) < 4e6 else np.float32(-2.5)
    return np.float32(-0.0 if r % 2 else 0.0)


def hints_64(own: Any, seed: int) -> Any:
    """Per-row float32 hints for 64-bit rows whose own thresholds (float32, NaN where a row
    selects nothing) are ``own``: every kind of :func:`hint_64` in turn, from ``seed`` on."""
    rng = np.random.default_rng(seed)
    own = np.asarray(own, dtype=np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        h = [hint_64((r + seed) % HINT_KINDS, own[r], r, rng) for r in range(len(own))]
    return np.array(h, dtype=np.float32)


def ragged_64(n: int, m: int, width: int, seed: int) -> Tuple[Any, Any]:
    """Per-row lengths (M, 0, 1, any) and k (the width, 0, 1, the length, above it up to the
    width, any up to the width) for ``n`` rows of ``m``, as int64 arrays."""
    rng = np.random.default_rng(seed)
    lengths = [
        [m, 0, min(1, m)][r % 5] if r % 5 < 3 else int(rng.integers(0, m + 1)) for r in range(n)
    ]
    ks: List[int] = []
    for r, length in enumerate(lengths):
        edges = [width, 0, 1, min(length, width), min(length + 1, width)]
        ks.append(edges[r % 6] if r % 6 < 5 else int(rng.integers(0, width + 1)))
    return np.array(lengths, dtype=np.int64), np.array(ks, dtype=np.int64)
