"""What a call asks for: the arguments of :func:`rtopk.topk` checked as ``torch.topk`` checks
them, as plain values (:class:`Ask`: what the custom op's schema carries), and the one native
request built from them (:func:`native`), cached.

Every path builds the request here — NumPy arrays, CPU and CUDA tensors in eager mode, the
custom op ``torch.ops.rtopk.topk``, its fake implementation under ``torch.compile``, and
autograd (which runs the op) — so they accept and refuse the same calls with the same
messages. Nothing here imports torch.
"""

from __future__ import annotations

import functools
import operator
from typing import Any, NamedTuple, Optional

import numpy as np

from . import _native

__all__ = ["Ask", "ask", "index_dtype_name", "native", "normalize_dim"]


class Ask(NamedTuple):
    """A call's request as plain Python values, checked for type (not yet for range: the
    native :class:`rtopk._native.Request` checks that, with the library's messages)."""

    k: int
    largest: bool
    sorted: bool
    algo: str
    max_iter: Optional[int]
    precision: float
    iterations: bool
    index_dtype: str


def _integer(name: str, value: Any) -> int:
    """``value`` as an int: ``TypeError`` for a bool or a non-integer, as ``torch.topk``'s
    argument parser (NumPy integers are integers)."""
    if type(value) is int:  # the common case first: this runs on every call
        return value
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"argument '{name}' must be int, not bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"argument '{name}' must be int, not {type(value).__name__}") from None


def _flag(name: str, value: Any) -> bool:
    """``value`` as a bool: ``TypeError`` for anything but a bool (``torch.topk`` refuses
    ``largest=1`` too)."""
    if value is True or value is False:
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    raise TypeError(f"argument '{name}' must be bool, not {type(value).__name__}")


def ask(
    k: Any,
    largest: Any,
    sorted: Any,
    algo: str,
    max_iter: Optional[int],
    precision: float,
    iterations: bool,
    indices_dtype: object,
) -> Ask:
    """The checked :class:`Ask` of :func:`rtopk.topk`'s arguments."""
    if not isinstance(algo, str):
        raise TypeError(f"argument 'algo' must be str, not {type(algo).__name__}")
    return Ask(
        _integer("k", k),
        _flag("largest", largest),
        _flag("sorted", sorted),
        algo,
        None if max_iter is None else _integer("max_iter", max_iter),
        float(precision),
        bool(iterations),
        "int64" if indices_dtype is None else index_dtype_name(indices_dtype),
    )


def check_dim(dim: Any) -> int:
    """``dim`` as an int: a bool or a non-integer is a ``TypeError`` (as in ``torch.topk``,
    where ``topk(x, 2, True)`` does not mean ``dim=1``)."""
    return _integer("dim", dim)


@functools.lru_cache(maxsize=256)
def native(a: Ask, dtype: str, device: str) -> _native.Request:
    """The native request of ``a`` for rows of ``dtype`` (``"float32"``, ``"float16"``,
    ``"bfloat16"``) on ``device`` (``"cpu"`` or ``"cuda"``): checked once, then cached (a
    request is immutable), so a loop of equal calls builds it once."""
    return _native.Request(
        k=a.k,
        algo=a.algo,
        largest=a.largest,
        sorted=a.sorted,
        iterations=a.iterations,
        max_iter=a.max_iter,
        precision=a.precision,
        index_dtype=a.index_dtype,
        dtype=dtype,
        device=device,
    )


def index_dtype_name(indices_dtype: object) -> str:
    """``"int32"`` or ``"int64"``: the indices ``indices_dtype`` asks for (``None``: int64).

    Takes NumPy dtypes (``numpy.int32``, ``"int64"``, ...) and torch dtypes
    (``torch.int32``, ``torch.int64``).
    """
    if indices_dtype is None:
        return "int64"
    name = str(indices_dtype)
    if name in ("torch.int32", "torch.int64"):
        return name[6:]
    try:
        dt = np.dtype(indices_dtype)  # type: ignore[call-overload]
    except TypeError:
        dt = None
    if dt == np.dtype(np.int32):
        return "int32"
    if dt == np.dtype(np.int64):
        return "int64"
    raise TypeError(f"indices_dtype must be int32 or int64 (NumPy or torch), got {indices_dtype!r}")


def normalize_dim(dim: int, ndim: int) -> int:
    """``dim`` as a non-negative axis of an ``ndim``-D input, or ``IndexError``."""
    if ndim == 0:
        raise IndexError(
            "rtopk.topk needs an input with at least one dimension (the rows' axis); got a 0-d "
            "input"
        )
    if not -ndim <= dim < ndim:
        raise IndexError(
            f"dim {dim} is out of range for an input of {ndim} dimension(s) "
            f"(expected {-ndim} to {ndim - 1})"
        )
    return dim % ndim
