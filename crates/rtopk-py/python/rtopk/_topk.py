"""``rtopk.topk``: row-wise top-k of NumPy arrays and PyTorch tensors (SPEC §1's answer).

How a call maps onto the kernels:

* **NumPy arrays** (and array-likes) — the axis ``dim`` is moved last and the array is
  viewed as ``(rows, M)``; the reshape copies only when the strides cannot describe the rows
  (e.g. ``dim`` in the middle of a C-order 3-D array). C-order, Fortran-order, strided,
  negative-stride and broadcast rows go to Rust as they are: the row-wise driver reads
  contiguous rows in place and copies a strided row into a per-thread buffer. The selection
  runs on every core (rayon) with the interpreter released, so other Python threads run
  meanwhile. Outputs are fresh arrays (``values`` in the input's dtype, ``indices`` int64 or
  int32, ``iterations`` int32), viewed back with ``k`` along ``dim``.
* **Element types** — float32, float16 and bfloat16 (``ml_dtypes.bfloat16``, recognised by
  its name and size without importing ml_dtypes). A 16-bit array goes to Rust as a ``uint16``
  view of its bit patterns (no copy) and its values come back as bits, viewed as the input's
  dtype: every element is ordered by its exact value (SPEC §1) and no value is converted.
* **torch CPU tensors** — the same path on a NumPy view of the tensor's storage (no copy of a
  contiguous input); outputs come back as tensors sharing the NumPy outputs' memory.
* **torch CUDA tensors** — the RTop-K CUDA kernel on the tensor's device and torch's current
  stream (see :mod:`rtopk.ops`).

Inputs that need autograd, and every call made while ``torch.compile`` traces, go through the
custom op ``torch.ops.rtopk.topk`` (:mod:`rtopk.ops`); other eager calls skip the op
dispatcher, whose fixed cost is larger than the wrapper's (see the package README).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Literal, NamedTuple, Optional, Tuple, overload

import numpy as np

from . import _native

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["TopK", "TopKIterations", "auto_algorithm", "element_name", "index_bits", "topk"]


class TopK(NamedTuple):
    """``(values, indices)``, as ``torch.topk`` returns them: ``k`` along ``dim``.

    ``values`` are the input's own bits at ``indices`` (NaN payloads and ``-0.0`` kept), in
    the input's dtype; ``indices`` are int64 unless int32 was asked for. Both are NumPy arrays
    for a NumPy input and tensors on the input's device for a tensor.
    """

    values: Any
    indices: Any


class TopKIterations(NamedTuple):
    """``(values, indices, iterations)``: :class:`TopK` plus each row's bisection iteration
    count (SPEC §3; int32, the input's shape without ``dim``)."""

    values: Any
    indices: Any
    iterations: Any


# Set (remember_torch) once torch is in use — when rtopk is imported after torch, or on the
# first tensor: `topk` then recognises a tensor and hands it over without importing anything.
_tensor_type: Optional[type] = None
_tensor_topk: Optional[Callable[..., Tuple[Any, Any, Any]]] = None


def auto_algorithm(device: str = "cpu") -> str:
    """The algorithm ``algo="auto"`` stands for on ``device`` (``"cpu"`` or ``"cuda"``).

    On the CPU it is ``bisect`` (RTop-K's Algorithm 1, the fastest exact CPU algorithm of the
    README's ``rtopk bench cpu`` table); on a GPU, ``cuda`` (the RTop-K kernel).
    """
    return _native.auto_algorithm(device)


def index_bits(indices_dtype: object) -> int:
    """32 or 64: the width of the indices ``indices_dtype`` asks for (``None``: int64).

    Takes NumPy dtypes (``numpy.int32``, ``"int64"``, ...) and torch dtypes
    (``torch.int32``, ``torch.int64``).
    """
    if indices_dtype is None:
        return 64
    name = str(indices_dtype)
    if name in ("torch.int32", "torch.int64"):
        return 32 if name == "torch.int32" else 64
    try:
        dt = np.dtype(indices_dtype)  # type: ignore[call-overload]
    except TypeError:
        dt = None
    if dt == np.dtype(np.int32):
        return 32
    if dt == np.dtype(np.int64):
        return 64
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


def _host_array(x: Any) -> "npt.NDArray[Any]":
    """``x`` as an ndarray Rust can read: native byte order, aligned (copies otherwise)."""
    a = np.asarray(x)
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    if not a.flags.aligned:
        a = a.copy()
    return a


def select_host(
    a: "npt.NDArray[Any]",
    k: int,
    dim: int,
    largest: bool,
    sorted: bool,
    algo: str,
    max_iter: Optional[int],
    precision: float,
    with_iterations: bool,
    bits: int,
    element: Optional[str] = None,
) -> Tuple["npt.NDArray[Any]", "npt.NDArray[Any]", Optional["npt.NDArray[Any]"]]:
    """Top-k of the host array ``a`` along ``dim`` (rows viewed, Rust selects); outputs viewed
    back with ``k`` along ``dim`` (not copied). ``a`` is float32, float16 or bfloat16 (values
    come back in its dtype) — or, with ``element`` (``"float16"``/``"bfloat16"``), a uint16
    array of that type's bit patterns (values come back as uint16 bits)."""
    name = element if element is not None else element_name(a.dtype)
    # 16-bit rows travel as their bit patterns (a view: same item size, any strides).
    src = a if name == "float32" or element is not None else a.view(np.uint16)
    if src.ndim == 2 and (dim == -1 or dim == 1):  # already (rows, M): nothing to view
        values, indices, iterations = _native.select(
            src, k, algo, largest, sorted, max_iter, precision, with_iterations, bits, name
        )
        return (values if src is a else values.view(a.dtype)), indices, iterations
    rows, batch, d = as_rows(src, dim)
    values, indices, iterations = _native.select(
        rows, k, algo, largest, sorted, max_iter, precision, with_iterations, bits, name
    )
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


@overload
def topk(
    x: Any,
    k: int,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = False,
    *,
    algo: str = "auto",
    max_iter: Optional[int] = None,
    precision: float = 0.0,
    return_iterations: Literal[False] = False,
    indices_dtype: object = None,
) -> TopK: ...


@overload
def topk(
    x: Any,
    k: int,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = False,
    *,
    algo: str = "auto",
    max_iter: Optional[int] = None,
    precision: float = 0.0,
    return_iterations: Literal[True],
    indices_dtype: object = None,
) -> TopKIterations: ...


def topk(
    x: Any,
    k: int,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = False,
    *,
    algo: str = "auto",
    max_iter: Optional[int] = None,
    precision: float = 0.0,
    return_iterations: bool = False,
    indices_dtype: object = None,
) -> "TopK | TopKIterations":
    """The ``k`` largest (or smallest) values of ``x`` along ``dim``, and their indices.

    Called like ``torch.topk``; returns ``TopK(values, indices)``, or
    ``TopKIterations(values, indices, iterations)`` with ``return_iterations=True``. The answer
    is SPEC §1's canonical top-k: every NaN ranks above ``+inf``, ``-0.0 == +0.0``, and among
    equal values the lower index wins; the selected set is the same for every exact algorithm
    and device.

    Args:
        x: a NumPy array (or array-like) or torch tensor of float32, float16 or bfloat16
            (``ml_dtypes.bfloat16`` for NumPy), any rank, CPU or CUDA (the CUDA kernel takes
            all three; 16-bit rows need compute capability 8.0). Values come back in the
            input's dtype, bit for bit.
        k: values per row, ``0 <= k <= M`` where ``M = x.shape[dim]``.
        dim: the axis the rows run along.
        largest: the ``k`` largest (default) or the ``k`` smallest (NaNs then come last).
        sorted: ``False``: ascending index order (the kernel's natural order, no sort pass);
            ``True``: value order (descending; ascending for ``largest=False``), ties by index.
        algo: ``"auto"`` (``bisect`` on the CPU, ``cuda`` on a GPU), or any SPEC §4 name of
            :func:`rtopk.algorithms` (``cuda`` on a NumPy array copies it to GPU 0 and back).
        max_iter: early stopping (RTop-K Algorithm 2) after this many bisection steps:
            approximate by design (SPEC §2). ``bisect``, ``sim`` and ``cuda`` only.
        precision: Algorithm 1's precision ε' > 0 (relative to the row maximum): approximate.
        return_iterations: also return each row's bisection iteration count (SPEC §3).
        indices_dtype: int64 (default, as ``torch.topk``) or int32 (``numpy.int32`` /
            ``torch.int32``; the CUDA kernel writes that width directly).

    Cost: the input is read in place (copied only when its strides cannot describe the rows,
    see the module docstring); the outputs are allocated once. On the CPU the rows run in
    parallel on every core with the GIL released; a CUDA tensor costs one kernel launch (two
    with ``sorted=True``) on the current stream, no synchronisation.

    Raises:
        ValueError: ``k < 0``, ``k > M``, ``M = 0``, an unknown ``algo``, a parameter the
            algorithm does not take, ``max_iter`` together with ``precision``.
        TypeError: a dtype other than float32, float16 and bfloat16, or ``indices_dtype``.
        IndexError: ``dim`` out of range.
        rtopk.CudaUnavailableError: a GPU algorithm without a CUDA driver.
    """
    bits = index_bits(indices_dtype)
    if _is_tensor(x):
        tensor_topk = _tensor_topk if _tensor_topk is not None else _load_torch_ops()
        values, indices, its = tensor_topk(
            x, k, dim, largest, sorted, algo, max_iter, precision, return_iterations, bits
        )
    else:
        values, indices, its = select_host(
            _host_array(x),
            k,
            dim,
            largest,
            sorted,
            algo,
            max_iter,
            precision,
            return_iterations,
            bits,
        )
    if return_iterations:
        return TopKIterations(values, indices, its)
    return TopK(values, indices)


def _is_tensor(x: Any) -> bool:
    """True for a torch tensor (subclasses included), without importing torch: before
    :mod:`rtopk.ops` is loaded, by the module of ``x``'s class."""
    if _tensor_type is not None:
        return isinstance(x, _tensor_type)
    module = type(x).__module__
    return module == "torch" or module.startswith("torch.")


def _load_torch_ops() -> Callable[..., Tuple[Any, Any, Any]]:
    """Imports :mod:`rtopk.ops` (registering ``torch.ops.rtopk.topk``; torch is in use, since
    a tensor came) and returns its tensor path, remembered for later calls — except while
    ``torch.compile`` traces this call: a global changed under the tracer breaks its guards."""
    import torch

    from .ops import topk_tensor

    if not torch.compiler.is_compiling():
        remember_torch(torch.Tensor, topk_tensor)
    return topk_tensor


def remember_torch(tensor_type: type, tensor_topk: Callable[..., Tuple[Any, Any, Any]]) -> None:
    """Lets :func:`topk` recognise tensors and hand them to ``tensor_topk`` directly."""
    global _tensor_type, _tensor_topk
    _tensor_type = tensor_type
    _tensor_topk = tensor_topk
