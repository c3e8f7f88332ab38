"""docs/contract.md §1 in Python: the canonical top-k every exact algorithm must return, and
hostile rows.

The order (largest mode): the usual ``<`` on numbers, except that every NaN (any sign, any
payload) ranks above ``+inf`` and NaNs tie with each other, ``-0.0 == +0.0``, and subnormals
are ordinary numbers. Among equal values the lower index wins, so the selected index set is
unique: sort by (value descending in this order, index ascending) and keep the first k.
Smallest mode selects the k lowest under the same order (NaNs last). Output: ascending index
order by default; with ``sorted``, the canonical order. Values are the input's bits.

Written from the contract's text alone — it shares no code with the package.
"""

from __future__ import annotations

from typing import List, Tuple

import numpy as np
import numpy.typing as npt

NAN_KEY = 1 << 32  # above every number's key (+inf's is 0xFF80_0000)


def order_keys(row: npt.NDArray[np.float32]) -> npt.NDArray[np.int64]:
    """An integer per element whose ``<`` is the order of docs/contract.md §1.

    Numbers: the IEEE bit pattern made monotone (flip every bit of a negative, set the sign
    bit of a non-negative), after ``-0.0`` is made ``+0.0``; NaNs: one key above all numbers.
    """
    bits = row.view(np.uint32).astype(np.int64)
    bits = np.where(row == 0, 0, bits)  # -0.0 == +0.0
    negative = bits >= 0x8000_0000
    keys = np.where(negative, 0xFFFF_FFFF - bits, bits + 0x8000_0000)
    return np.where(np.isnan(row), NAN_KEY, keys)


def canonical(
    row: npt.NDArray[np.float32], k: int, largest: bool = True, sorted: bool = False
) -> npt.NDArray[np.int64]:
    """The canonical top-k indices of one row, in the requested output order."""
    keys = order_keys(row)
    index = np.arange(len(row))
    primary = -keys if largest else keys
    order = np.lexsort((index, primary))  # by primary, then by index ascending
    chosen = order[:k]
    return chosen.astype(np.int64) if sorted else np.sort(chosen).astype(np.int64)


def canonical_rows(
    x: npt.NDArray[np.float32], k: int, largest: bool = True, sorted: bool = False
) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]:
    """The canonical top-k of every row of the 2-D ``x``: (values, indices), each ``(N, k)``."""
    n = x.shape[0]
    indices = np.zeros((n, k), dtype=np.int64)
    for r in range(n):
        indices[r] = canonical(x[r], k, largest, sorted)
    values = np.take_along_axis(x, indices, axis=1)
    return values, indices


def canonical_along(
    x: npt.NDArray[np.float32], k: int, dim: int, largest: bool = True, sorted: bool = False
) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]:
    """:func:`canonical_rows` along the axis ``dim`` of an array of any rank."""
    moved = np.moveaxis(x, dim, -1)
    rows = np.ascontiguousarray(moved).reshape(-1, moved.shape[-1])
    values, indices = canonical_rows(rows, k, largest, sorted)
    shape = (*moved.shape[:-1], k)
    return (
        np.moveaxis(values.reshape(shape), -1, dim),
        np.moveaxis(indices.reshape(shape), -1, dim),
    )


# Bit patterns a top-k kernel gets wrong: NaNs of both signs with payloads (quiet and
# signalling), infinities, both zeros, subnormals of both signs, the extremes.
SPECIAL_BITS = np.array(
    [
        0x7FC0_0000,  # quiet NaN
        0xFFC0_0000,  # negative quiet NaN
        0x7FC0_1234,  # quiet NaN with a payload
        0xFFC0_0001,  # negative quiet NaN with a payload
        0x7F80_0001,  # signalling NaN with a payload
        0xFF81_2345,  # negative signalling NaN with a payload
        0x7F80_0000,  # +inf
        0xFF80_0000,  # -inf
        0x0000_0000,  # +0.0
        0x8000_0000,  # -0.0
        0x0000_0001,  # smallest positive subnormal
        0x8000_0001,  # its negative
        0x007F_FFFF,  # largest subnormal
        0x807F_FFFF,
        0x0040_0000,
        0x7F7F_FFFF,  # largest finite
        0xFF7F_FFFF,  # lowest finite
    ],
    dtype=np.uint32,
)

FAMILIES: List[str] = ["hostile", "ties", "nan-heavy", "subnormal", "normal"]


def hostile_matrix(n: int, m: int, family: str, seed: int) -> npt.NDArray[np.float32]:
    """``(n, m)`` float32 rows of ``family``, reproducible from ``seed``."""
    rng = np.random.default_rng(seed)
    normal = rng.standard_normal((n, m)).astype(np.float32)
    special = SPECIAL_BITS[rng.integers(0, len(SPECIAL_BITS), (n, m))].view(np.float32)
    tie = rng.integers(-2, 3, (n, m)).astype(np.float32)
    pick = rng.random((n, m))
    if family == "hostile":
        out = np.where(pick < 0.3, special, np.where(pick < 0.6, tie, normal))
    elif family == "ties":
        out = rng.integers(0, 2, (n, m)).astype(np.float32)
    elif family == "nan-heavy":
        nan = SPECIAL_BITS[rng.integers(0, 6, (n, m))].view(np.float32)
        out = np.where(pick < 0.6, nan, normal)
    elif family == "subnormal":
        sub = (rng.integers(1, 1 << 23, (n, m)).astype(np.uint32) | 0).view(np.float32)
        sign = np.where(rng.random((n, m)) < 0.5, -1.0, 1.0).astype(np.float32)
        out = np.where(pick < 0.8, sub * sign, np.float32(0.0) * sign)
    else:
        out = normal
    return np.ascontiguousarray(out, dtype=np.float32)


def ks_for(m: int) -> List[int]:
    """k = 0, 1, M-1, M and one in between."""
    return sorted({0, 1, max(m - 1, 0), m, m // 3})


def same_bits(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> bool:
    """Equal as bit patterns (NaN payloads and the sign of zero count)."""
    a = np.ascontiguousarray(a)
    b = np.ascontiguousarray(b)
    return a.shape == b.shape and bool(np.array_equal(a.view(np.uint32), b.view(np.uint32)))
