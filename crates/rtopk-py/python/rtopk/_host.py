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
* Element types: float32, float16 and bfloat16 (``ml_dtypes.bfloat16``, recognised by its
  name and size without importing ml_dtypes). A 16-bit array goes to Rust as a ``uint16`` view
  of its bit patterns (no copy) and its values come back as bits, viewed as the input's dtype:
  every element is ordered by its exact value (docs/contract.md §1) and no value is converted.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Optional, Tuple

import numpy as np

from . import _native
from ._request import Ask, native, normalize_dim

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["as_rows", "element_name", "host_array", "select_host"]


def as_rows(a: "npt.NDArray[Any]", dim: int) -> Tuple["npt.NDArray[Any]", Tuple[int, ...], int]:
    """``a`` as ``(rows, M)`` with ``dim`` last: a view where the strides allow, a copy only
    where they do not. Returns the rows, the batch shape and the normalised ``dim``."""
    d = normalize_dim(dim, a.ndim)
    moved = a if d == a.ndim - 1 else np.moveaxis(a, d, -1)
    batch = moved.shape[:-1]
    rows = moved.reshape(math.prod(batch), moved.shape[-1])
    return rows, batch, d


def element_name(dtype: "np.dtype[Any]") -> str:
    """``"float32"``, ``"float16"`` or ``"bfloat16"``: the element type of a NumPy dtype (the
    bfloat16 of ml_dtypes is recognised by its name and size, without importing ml_dtypes);
    ``TypeError`` for any other dtype."""
    if dtype == np.float32:
        return "float32"
    if dtype == np.float16:
        return "float16"
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


def select_host(
    a: "npt.NDArray[Any]",
    dim: int,
    ask: Ask,
    element: Optional[str] = None,
) -> Tuple["npt.NDArray[Any]", "npt.NDArray[Any]", Optional["npt.NDArray[Any]"]]:
    """Top-k of the host array ``a`` along ``dim`` as ``ask`` asks (rows viewed, Rust
    selects); outputs viewed back with ``k`` along ``dim`` (not copied). ``a`` is float32,
    float16 or bfloat16 (values come back in its dtype) — or, with ``element``
    (``"float16"``/``"bfloat16"``), a uint16 array of that type's bit patterns (values come
    back as uint16 bits)."""
    name = element if element is not None else element_name(a.dtype)
    request = native(ask, name, "cpu")
    # 16-bit rows travel as their bit patterns (a view: same item size, any strides).
    src = a if name == "float32" or element is not None else a.view(np.uint16)
    if src.ndim == 2 and (dim == -1 or dim == 1):  # already (rows, M): nothing to view
        values, indices, iterations = _native.select(src, request)
        return (values if src is a else values.view(a.dtype)), indices, iterations
    rows, batch, d = as_rows(src, dim)
    values, indices, iterations = _native.select(rows, request)
    if src is not a:
        values = values.view(a.dtype)
    shape = (*batch, values.shape[1])
    values = values.reshape(shape)
    indices = indices.reshape(shape)
    if d != a.ndim - 1:
        values = np.moveaxis(values, -1, d)
        indices = np.moveaxis(indices, -1, d)
    its = None if iterations is None else iterations.reshape(batch)
    return values, indices, its
