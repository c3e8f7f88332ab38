"""What a call asks for: the arguments of :func:`rtopk.topk` checked as ``torch.topk`` checks
them, as plain values (:class:`Ask`: what the custom op's schema carries; :class:`PerRow`:
the per-row inputs of docs/contract.md §5), and the one native request built from them
(:func:`native`, cached; :func:`native_per_row` for a call with per-row inputs).

Every path builds the request here — NumPy arrays, CPU and CUDA tensors in eager mode, the
custom op ``torch.ops.rtopk.topk``, its fake implementation under ``torch.compile``, and
autograd (which runs the op) — so they accept and refuse the same calls with the same
messages. Nothing here imports torch.
"""

from __future__ import annotations

import functools
import math
import operator
from typing import Any, NamedTuple, Optional, Tuple

import numpy as np

from . import _native

__all__ = [
    "NO_ROWS",
    "WIDEST",
    "Ask",
    "PerRow",
    "ask",
    "check_integer",
    "check_per_row_shape",
    "check_width",
    "device_request",
    "index_dtype_name",
    "is_per_row_k",
    "native",
    "native_per_row",
    "normalize_dim",
    "per_row_arrays",
]


class Ask(NamedTuple):
    """A call's request as plain Python values, checked for type (not yet for range: the
    native :class:`rtopk._native.Request` checks that, with the library's messages)."""

    k: int  # the one k, or the output width of a per-row k
    largest: bool
    sorted: bool
    algo: str
    max_iter: Optional[int]
    precision: float
    iterations: bool
    index_dtype: str
    threshold: bool = False
    recall: Optional[float] = None  # a recall target (docs/contract.md §6)


# Ask.k of a per-row k whose output width was not given: the largest k[i] (docs/contract.md
# §5), read off the host array.
WIDEST = -1


class PerRow(NamedTuple):
    """The per-row inputs of a call (docs/contract.md §5), each ``None`` or an array-like (a
    NumPy array, a list, a CPU tensor) with one entry per row: ``k`` integers, ``lengths``
    integers, ``hint`` floats. :func:`per_row_arrays` checks their types and shapes."""

    k: Any = None
    lengths: Any = None
    hint: Any = None

    def given(self) -> bool:
        return self.k is not None or self.lengths is not None or self.hint is not None


# No per-row inputs (a module constant: a NamedTuple is immutable).
NO_ROWS = PerRow()


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


def _real(name: str, value: Any) -> float:
    """``value`` as a float: ``TypeError`` for a bool or a non-number (the range is the
    native request's check, a ``ValueError``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"argument '{name}' must be float, not {type(value).__name__}")
    return float(value)


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
    threshold: bool = False,
    recall: Any = None,
) -> Ask:
    """The checked :class:`Ask` of :func:`rtopk.topk`'s arguments (``k`` an int: the one k,
    or the output width of a per-row k)."""
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
        _flag("return_threshold", threshold),
        None if recall is None else _real("recall", recall),
    )


def is_per_row_k(k: Any) -> bool:
    """True when ``k`` is an array or tensor (one k per row) rather than one integer (a 0-d
    array or tensor counts as one integer, as in ``torch.topk``)."""
    if isinstance(k, (list, tuple)):
        return True
    ndim = getattr(k, "ndim", None)
    return isinstance(ndim, int) and ndim > 0


def _host(name: str, value: Any) -> "np.ndarray[Any, Any]":
    """``value`` (array-like or CPU tensor) as a NumPy array, without importing torch."""
    module = type(value).__module__
    if module == "torch" or module.startswith("torch."):
        if value.device.type != "cpu":
            raise ValueError(f"{name} is on {value.device}; for host inputs it must be on the CPU")
        value = value.detach().numpy()
    return np.asarray(value)


def _per_row(name: str, value: Any, batch: Tuple[int, ...], kind: str) -> "np.ndarray[Any, Any]":
    """One per-row input as a 1-D C-order array of one entry per row: int64 for ``kind``
    ``"int"``, float32 for ``"float"``. Its shape is the input's without ``dim`` (or 1-D of
    one entry per row); ``TypeError`` for a wrong dtype, ``ValueError`` for a wrong shape."""
    a = _host(name, value)
    n = math.prod(batch)
    if a.dtype == np.bool_ or not (
        np.issubdtype(a.dtype, np.integer)
        or (kind == "float" and np.issubdtype(a.dtype, np.floating))
    ):
        what = "integers" if kind == "int" else "floats"
        raise TypeError(f"{name} must be an array of {what}, not of {a.dtype}")
    check_per_row_shape(name, a.shape, batch)
    want = np.int64 if kind == "int" else np.float32
    if kind == "int" and a.dtype.kind == "u" and a.size and int(a.max()) > np.iinfo(np.int64).max:
        raise ValueError(f"{name} holds a value too large: {int(a.max())}")
    return np.ascontiguousarray(a.reshape(n), dtype=want)


def check_per_row_shape(name: str, shape: Tuple[int, ...], batch: Tuple[int, ...]) -> None:
    """``ValueError`` unless a per-row input of ``shape`` has one entry per row: the input's
    shape without ``dim`` (``batch``), or 1-D."""
    n = math.prod(batch)
    if shape != batch and shape != (n,):
        # a 2-D input's batch is already (n,): one shape to name, not the same one twice
        shapes = str(batch)
        if batch != (n,):
            shapes += f" (the input's shape without dim) or ({n},)"
        raise ValueError(f"{name} has shape {shape}; give one entry per row: shape {shapes}")


def check_width(width: int, k: "np.ndarray[Any, Any]") -> None:
    """``ValueError`` unless the output width a caller gave holds every ``k[i]``."""
    if width != WIDEST and k.size and width < int(k.max()):
        raise ValueError(
            f"width = {width} is less than the largest k[i] = {int(k.max())}; the outputs "
            "need a column for every selected value"
        )


def per_row_arrays(
    rows: PerRow, batch: Tuple[int, ...]
) -> Tuple[Optional["np.ndarray[Any, Any]"], ...]:
    """The checked per-row arrays of ``rows`` for an input whose shape without ``dim`` is
    ``batch``: ``(k, lengths, hint)``, each None or 1-D with one entry per row."""
    k = None if rows.k is None else _per_row("k", rows.k, batch, "int")
    lengths = None if rows.lengths is None else _per_row("lengths", rows.lengths, batch, "int")
    hint = None if rows.hint is None else _per_row("hint", rows.hint, batch, "float")
    return k, lengths, hint


def check_integer(name: str, value: Any) -> int:
    """``value`` as an int, with ``torch.topk``'s ``TypeError`` for a bool or a non-integer."""
    return _integer(name, value)


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
        threshold=a.threshold,
        dtype=dtype,
        device=device,
        recall=a.recall,
    )


def native_per_row(
    a: Ask,
    dtype: str,
    device: str,
    k: Optional["np.ndarray[Any, Any]"],
    lengths: Optional["np.ndarray[Any, Any]"],
    hint: Optional["np.ndarray[Any, Any]"],
) -> _native.Request:
    """The native request of a call with per-row inputs (the arrays of
    :func:`per_row_arrays`): built on every call, not cached (its arrays are the call's)."""
    return _native.Request(
        k=a.k if k is None else k,
        algo=a.algo,
        largest=a.largest,
        sorted=a.sorted,
        iterations=a.iterations,
        max_iter=a.max_iter,
        precision=a.precision,
        index_dtype=a.index_dtype,
        threshold=a.threshold,
        dtype=dtype,
        device=device,
        lengths=lengths,
        hint=hint,
        recall=a.recall,
    )


@functools.lru_cache(maxsize=64)
def device_request(
    a: Ask,
    dtype: str,
    device: str,
    n: int,
    m: int,
    per_row_k: bool,
    lengths: bool,
    hint: bool,
) -> _native.Request:
    """The native request of a call whose per-row inputs the kernel reads from device arrays
    (docs/contract.md §5): it says which per-row inputs there are and the output width
    (``a.k``), not their values — the per-row k is ``a.k`` for every row and the lengths
    ``m``, placeholders the kernel never reads (it takes each row's own from the device arrays,
    cut to ``m`` and to the width). Checked against ``n`` rows of width ``m`` (the algorithm
    takes per-row inputs, ``a.k <= m``, ...) and cached: a decode loop builds it once."""
    request = native_per_row(
        a,
        dtype,
        device,
        np.full(n, a.k, dtype=np.int64) if per_row_k else None,
        np.full(n, m, dtype=np.int64) if lengths else None,
        np.zeros(n, dtype=np.float32) if hint else None,
    )
    request.check(m, n)
    return request


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
