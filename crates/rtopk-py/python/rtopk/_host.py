"""Host memory: NumPy arrays (and torch CPU tensors, as NumPy views of their storage) viewed
as ``(rows, M)`` and selected by the native module with one request.

* The axis ``dim`` is moved last and the array is viewed as ``(rows, M)``; the reshape copies
  only when the strides cannot describe the rows (e.g. ``dim`` in the middle of a C-order 3-D
  array). C-order, Fortran-order, strided, negative-stride and broadcast rows go to Rust as
  they are: the row-wise driver reads contiguous rows in place and copies a strided row into
  a per-thread buffer. The selection runs on every core (rayon) with the interpreter
  released, so other Python threads run meanwhile. Outputs are fresh arrays (``values`` in the
  input's dtype, ``indices`` int64 or int32, ``iterations`` int32), viewed back with ``k``
  along ``dim``.
* Element types: float32, float16, bfloat16 (``ml_dtypes.bfloat16``, recognised by its
  name and size without importing ml_dtypes), float64, int8, uint8, int16, int32 and int64.
  The types NumPy has go to Rust as they are. A 16-bit float array goes as a ``uint16`` view
  of its bit patterns (no copy) and its values come back as bits, viewed as the input's dtype:
  every element is ordered by its exact value (docs/contract.md §1) and no value is converted.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Dict, Optional, Tuple

import numpy as np

from . import _native
from ._request import (
    NO_ROWS,
    WIDEST,
    Ask,
    PerRow,
    check_width,
    native,
    native_per_row,
    normalize_dim,
    per_row_arrays,
)

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["Outputs", "as_rows", "element_name", "host_array", "select_host"]


def as_rows(a: "npt.NDArray[Any]", dim: int) -> Tuple["npt.NDArray[Any]", Tuple[int, ...], int]:
    """``a`` as ``(rows, M)`` with ``dim`` last: a view where the strides allow, a copy only
    where they do not. Returns the rows, the batch shape and the normalised ``dim``."""
    d = normalize_dim(dim, a.ndim)
    moved = a if d == a.ndim - 1 else np.moveaxis(a, d, -1)
    batch = moved.shape[:-1]
    rows = moved.reshape(math.prod(batch), moved.shape[-1])
    return rows, batch, d


# The element types NumPy has, by dtype (a table: a dtype's ``name`` is Python-level code in
# NumPy, microseconds a call); float16 and bfloat16 travel as their bits.
_NAMES: Dict["np.dtype[Any]", str] = {
    np.dtype(t): str(np.dtype(t).name)
    for t in (
        np.float32,
        np.float16,
        np.float64,
        np.int8,
        np.uint8,
        np.int16,
        np.int32,
        np.int64,
    )
}
# The 16-bit floats, which go to Rust as uint16 bit patterns.
SIXTEEN_BIT = ("float16", "bfloat16")


def element_name(dtype: "np.dtype[Any]") -> str:
    """``"float32"``, ``"float16"``, ``"bfloat16"``, ``"float64"``, ``"int8"``, ``"uint8"``,
    ``"int16"``, ``"int32"`` or ``"int64"``: the element type of a NumPy dtype (the bfloat16
    of ml_dtypes is recognised by its name and size, without importing ml_dtypes);
    ``TypeError`` for any other dtype."""
    name = _NAMES.get(dtype)
    if name is not None:
        return name
    if dtype.name == "bfloat16" and dtype.itemsize == 2:
        return "bfloat16"
    raise TypeError(_native.unsupported_dtype(str(dtype)))


def host_array(x: Any) -> "npt.NDArray[Any]":
    """``x`` as an ndarray Rust can read: native byte order, aligned (copies otherwise)."""
    a = np.asarray(x)
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    if not a.flags.aligned:
        a = a.copy()
    return a


Outputs = Tuple[
    "npt.NDArray[Any]",
    "npt.NDArray[Any]",
    Optional["npt.NDArray[Any]"],
    Optional["npt.NDArray[Any]"],
]


def select_host(
    a: "npt.NDArray[Any]",
    dim: int,
    ask: Ask,
    element: Optional[str] = None,
    rows: PerRow = NO_ROWS,
) -> Outputs:
    """Top-k of the host array ``a`` along ``dim`` as ``ask`` and ``rows`` (the per-row inputs,
    docs/contract.md §5) ask (rows viewed, Rust selects); outputs viewed back with ``K``
    along ``dim`` (not copied): ``(values, indices, iterations, threshold)``, the last two
    None unless asked for. ``a`` is of any element type (values come back in its dtype) —
    or, with ``element`` (``"float16"``/``"bfloat16"``), a uint16 array of that type's bit
    patterns (values come back as uint16 bits)."""
    if a.ndim == 0:
        return _select_scalar(a, dim, ask, element, rows)
    name = element if element is not None else element_name(a.dtype)
    # 16-bit floats travel as their bit patterns (a view: same item size, any strides).
    src = a if name not in SIXTEEN_BIT or element is not None else a.view(np.uint16)
    if src.ndim == 2 and (dim == -1 or dim == 1):  # already (rows, M): nothing to view
        flat, batch, d = src, src.shape[:1], 1
    else:
        flat, batch, d = as_rows(src, dim)
    width = ask.k
    if rows.given():
        k, lengths, hint = per_row_arrays(rows, batch)
        if k is not None:
            check_width(width, k)
            if width == WIDEST:
                width = int(k.max()) if k.size else 0
        request = native_per_row(ask, name, "cpu", k, lengths, hint)
    else:
        request = native(ask, name, "cpu")
    values, indices, iterations, threshold = _native.select(flat, request)
    if width > values.shape[1]:
        values, indices = _widen(values, indices, width)
    if src is not a:
        values = values.view(a.dtype)
    if flat is not src:
        shape = (*batch, values.shape[1])
        values = values.reshape(shape)
        indices = indices.reshape(shape)
        if d != a.ndim - 1:
            values = np.moveaxis(values, -1, d)
            indices = np.moveaxis(indices, -1, d)
        iterations = None if iterations is None else iterations.reshape(batch)
        threshold = None if threshold is None else threshold.reshape(batch)
    return values, indices, iterations, threshold


def _select_scalar(
    a: "npt.NDArray[Any]", dim: int, ask: Ask, element: Optional[str], rows: PerRow
) -> Outputs:
    """A 0-d input as ``torch.topk`` takes it: one row of one value (``dim`` 0 or -1); the
    outputs are 0-d for ``k = 1`` and empty for ``k = 0``."""
    if dim not in (0, -1):
        raise IndexError(f"dim {dim} is out of range for a 0-d input (expected -1 or 0)")
    values, indices, iterations, threshold = select_host(a.reshape(1, 1), -1, ask, element, rows)
    shape = () if values.shape[1] == 1 else (0,)
    return (
        values.reshape(shape),
        indices.reshape(shape),
        None if iterations is None else iterations.reshape(()),
        None if threshold is None else threshold.reshape(()),
    )


def _widen(
    values: "npt.NDArray[Any]", indices: "npt.NDArray[Any]", width: int
) -> Tuple["npt.NDArray[Any]", "npt.NDArray[Any]"]:
    """The outputs padded on the right to ``width`` columns (the ``width`` a caller gave
    above the largest k[i]): index -1, value 0 (all bits zero), as docs/contract.md §5 pads."""
    n, have = values.shape
    v = np.zeros((n, width), dtype=values.dtype)
    i = np.full((n, width), -1, dtype=indices.dtype)
    v[:, :have] = values
    i[:, :have] = indices
    return v, i
