"""An independent reading of docs/contract.md §1 and §5, in NumPy, for differential checks."""

import numpy as np


def canonical_order(row, smallest):
    """Indices of `row` by the canonical order: integers as integers; floats by their exact
    value, every NaN above +inf, -0 == +0; ties to the lower index."""
    idx = np.arange(len(row))
    if row.dtype.kind in "iu":
        # ~v reverses the order of a signed or unsigned integer without overflow
        return np.lexsort((idx, row if smallest else ~row))
    v = row.astype(np.float32) if row.dtype.name == "bfloat16" else row
    v = v.astype(np.float64)  # f16, bf16 and f32 convert exactly
    nan = np.isnan(v).astype(np.int8)
    w = np.where(nan, 0.0, v)
    if smallest:
        return np.lexsort((idx, w, nan))
    return np.lexsort((idx, -w, -nan))


def as_f32(value, dtype):
    """One element as an f32 (rounded to nearest where it is not exact)."""
    return np.float32(np.float32(value) if dtype.name == "bfloat16" else value)


def reference(x, k, smallest=False, sorted_=False, lengths=None, width=None):
    """(values, indices, threshold) per docs/contract.md §1/§5. k: an int or one per row; width: the
    output's width (default: k, or the largest k)."""
    n, m = x.shape
    ks = np.full(n, k, dtype=np.int64) if np.isscalar(k) else np.asarray(k, dtype=np.int64)
    if width is None:
        width = int(k) if np.isscalar(k) else (int(ks.max()) if n else 0)
    vals = np.zeros((n, width), dtype=x.dtype)
    vals.view(np.uint8)[:] = 0  # padding: all bits zero
    idxs = np.full((n, width), -1, dtype=np.int64)
    thr = np.full(n, np.nan, dtype=np.float32)
    for i in range(n):
        valid = m if lengths is None else int(lengths[i])
        take = min(int(ks[i]), valid)
        if take == 0:
            continue
        order = canonical_order(x[i, :valid], smallest)[:take]
        thr[i] = as_f32(x[i, order[-1]], x.dtype)
        if not sorted_:
            order = np.sort(order)
        idxs[i, :take] = order
        vals[i, :take] = x[i, order]
    return vals, idxs, thr


def bits(a):
    a = np.ascontiguousarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])
