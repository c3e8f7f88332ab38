"""``rtopk.topk``: row-wise top-k of NumPy arrays and PyTorch tensors (the answer of
docs/contract.md §1), called like ``torch.topk`` and with its defaults.

How a call maps onto the kernels:

* **NumPy arrays** (and array-likes) and **torch CPU tensors** — viewed as ``(rows, M)`` and
  selected on every core (:mod:`rtopk._host`; a CPU tensor as a NumPy view of its storage, no
  copy of a contiguous input; its outputs come back as tensors sharing the NumPy outputs'
  memory).
* **torch CUDA tensors** — the RTop-K CUDA kernel on the tensor's device and torch's current
  stream (see :mod:`rtopk.ops`).

Every path checks the arguments once (:mod:`rtopk._request`) and hands the native module one
request object. Inputs that need autograd, and every call made while ``torch.compile``
traces, go through the custom op ``torch.ops.rtopk.topk`` (:mod:`rtopk.ops`), which builds the
same request from the same values; other eager calls skip the op dispatcher, whose fixed cost
is larger than the wrapper's (see the package README).
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Literal, NamedTuple, Optional, Tuple, overload

from . import _native
from ._host import host_array, select_host
from ._request import Ask, ask, check_dim

__all__ = ["TopK", "TopKIterations", "auto_algorithm", "topk"]


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
    count (docs/contract.md §3; int32, the input's shape without ``dim``)."""

    values: Any
    indices: Any
    iterations: Any


def auto_algorithm(device: str = "cpu") -> str:
    """The algorithm ``algo="auto"`` stands for on ``device`` (``"cpu"`` or ``"cuda"``).

    On the CPU it is ``bisect`` (RTop-K's Algorithm 1, the fastest exact CPU algorithm of the
    README's ``rtopk bench cpu`` table); on a GPU, ``cuda`` (the RTop-K kernel).
    """
    return _native.auto_algorithm(device)


@overload
def topk(
    x: Any,
    k: int,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = True,
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
    sorted: bool = True,
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
    sorted: bool = True,
    *,
    algo: str = "auto",
    max_iter: Optional[int] = None,
    precision: float = 0.0,
    return_iterations: bool = False,
    indices_dtype: object = None,
) -> "TopK | TopKIterations":
    """The ``k`` largest (or smallest) values of ``x`` along ``dim``, and their indices.

    Called like ``torch.topk``, with its defaults (``dim=-1``, ``largest=True``,
    ``sorted=True``) and its argument types (an integer ``k`` and ``dim``: a bool there is a
    ``TypeError``; booleans ``largest`` and ``sorted``); returns ``TopK(values, indices)``, or
    ``TopKIterations(values, indices, iterations)`` with ``return_iterations=True``. The answer
    is the canonical top-k of docs/contract.md §1: every NaN ranks above ``+inf``,
    ``-0.0 == +0.0``, and among equal values the lower index wins; the selected set is the same
    for every exact algorithm and device.

    Args:
        x: a NumPy array (or array-like) or torch tensor of float32, float16 or bfloat16
            (``ml_dtypes.bfloat16`` for NumPy), any rank, CPU or CUDA (the CUDA kernel takes
            all three; 16-bit rows need compute capability 8.0). Values come back in the
            input's dtype, bit for bit.
        k: values per row, ``0 <= k <= M`` where ``M = x.shape[dim]``.
        dim: the axis the rows run along.
        largest: the ``k`` largest (default) or the ``k`` smallest (NaNs then come last).
        sorted: ``True`` (default, as ``torch.topk``): value order (descending; ascending for
            ``largest=False``), ties by index; ``False``: ascending index order (the kernel's
            natural order, no sort pass: cheaper on a GPU).
        algo: ``"auto"`` (``bisect`` on the CPU, ``cuda`` on a GPU), or any name of
            :func:`rtopk.algorithms` (docs/contract.md §4; ``cuda`` on a NumPy array copies it
            to GPU 0 and back).
        max_iter: early stopping (RTop-K Algorithm 2) after this many bisection steps:
            approximate by design (docs/contract.md §2). ``bisect``, ``sim`` and ``cuda`` only.
        precision: Algorithm 1's precision ε' > 0 (relative to the row maximum): approximate.
        return_iterations: also return each row's bisection iteration count
            (docs/contract.md §3).
        indices_dtype: int64 (default, as ``torch.topk``) or int32 (``numpy.int32`` /
            ``torch.int32``; the CUDA kernel writes that width directly).

    Cost: the input is read in place (copied only when its strides cannot describe the rows,
    see the module docstring); the outputs are allocated once. On the CPU the rows run in
    parallel on every core with the GIL released; a CUDA tensor costs one kernel launch (two
    with ``sorted=True``) on the current stream, no synchronisation.

    Raises:
        ValueError: ``k < 0``, ``k > M``, ``M = 0``, an unknown ``algo``, a parameter the
            algorithm does not take, ``max_iter`` together with ``precision``.
        TypeError: a dtype other than float32, float16 and bfloat16, ``indices_dtype``, a
            bool or a non-integer for ``k`` or ``dim``, a non-bool ``largest`` or ``sorted``.
        IndexError: ``dim`` out of range.
        rtopk.CudaUnavailableError: a GPU algorithm without a CUDA driver.
    """
    dim = check_dim(dim)
    a = ask(k, largest, sorted, algo, max_iter, precision, return_iterations, indices_dtype)
    if _is_tensor(x):
        values, indices, its = _tensor_topk(x, dim, a)
    else:
        values, indices, its = select_host(host_array(x), dim, a)
    if return_iterations:
        return TopKIterations(values, indices, its)
    return TopK(values, indices)


def _is_tensor(x: Any) -> bool:
    """True for a torch tensor (subclasses included), without importing torch: by the module
    of ``x``'s class (``torch``, ``torch.nn.parameter``, ...), else by ``isinstance`` once
    torch is loaded."""
    module = type(x).__module__
    if module == "torch" or module.startswith("torch."):
        return True
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


class _TensorPath:
    """A cache of :func:`rtopk.ops.topk_tensor`, the tensor path: importing :mod:`rtopk.ops`
    registers ``torch.ops.rtopk.topk`` (torch is in use, since a tensor came), and an import
    statement on every call would cost a microsecond. Filled by the first eager tensor call,
    never while ``torch.compile`` traces (a value changed under the tracer breaks its guards).
    """

    __slots__ = ("topk",)

    def __init__(self) -> None:
        self.topk: Optional[Callable[[Any, int, Ask], Tuple[Any, Any, Any]]] = None


_TENSOR_PATH = _TensorPath()


def _tensor_topk(x: Any, dim: int, a: Ask) -> Tuple[Any, Any, Any]:
    """The tensor path (:mod:`rtopk.ops`)."""
    path = _TENSOR_PATH.topk
    if path is None:
        import torch

        from .ops import topk_tensor

        path = topk_tensor
        if not torch.compiler.is_compiling():
            _TENSOR_PATH.topk = path
    return path(x, dim, a)
