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
from typing import Any, Callable, Literal, NamedTuple, Optional, Tuple, Union, overload

from . import _native
from ._host import host_array, select_host
from ._request import WIDEST, Ask, PerRow, ask, check_dim, check_integer, is_per_row_k

# (values, indices, iterations or None, threshold or None)
Outputs = Tuple[Any, Any, Any, Any]

__all__ = [
    "TopK",
    "TopKIterations",
    "TopKIterationsThreshold",
    "TopKThreshold",
    "auto_algorithm",
    "topk",
]


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

    On the CPU it is ``bisect`` (RTop-K's Algorithm 1), whose parameters and outputs it takes;
    an exact call without iteration counts runs each row at least 256 times longer than its
    ``k`` on ``heap`` (from 1024 values with 32- and 64-bit keys, 16384 with narrower ones) and
    short rows at ``k = 1`` on ``bucket`` instead, with the same answer (one to three passes
    where ``bisect`` makes about ten; docs/performance.md, "`auto` on the CPU"). On a GPU,
    ``cuda`` (the RTop-K kernel).
    """
    return _native.auto_algorithm(device)


class TopKThreshold(NamedTuple):
    """``(values, indices, threshold)``: :class:`TopK` plus each row's threshold
    (docs/contract.md §5): the k-th selected value (largest mode: the lowest selected;
    smallest mode: the highest) as float32, NaN for a row that selects nothing; the input's
    shape without ``dim``."""

    values: Any
    indices: Any
    threshold: Any


class TopKIterationsThreshold(NamedTuple):
    """``(values, indices, iterations, threshold)``: :class:`TopKIterations` plus each row's
    threshold (see :class:`TopKThreshold`)."""

    values: Any
    indices: Any
    iterations: Any
    threshold: Any


Result = Union[TopK, TopKIterations, TopKThreshold, TopKIterationsThreshold]


@overload
def topk(
    x: Any,
    k: Any,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = True,
    *,
    algo: str = "auto",
    max_iter: Optional[int] = None,
    precision: float = 0.0,
    recall: Optional[float] = None,
    return_iterations: Literal[False] = False,
    indices_dtype: object = None,
    lengths: Any = None,
    hint: Any = None,
    return_threshold: Literal[False] = False,
    width: Optional[int] = None,
    out: Optional[Tuple[Any, Any]] = None,
) -> TopK: ...


@overload
def topk(
    x: Any,
    k: Any,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = True,
    *,
    algo: str = "auto",
    max_iter: Optional[int] = None,
    precision: float = 0.0,
    recall: Optional[float] = None,
    return_iterations: Literal[True],
    indices_dtype: object = None,
    lengths: Any = None,
    hint: Any = None,
    return_threshold: Literal[False] = False,
    width: Optional[int] = None,
    out: Optional[Tuple[Any, Any]] = None,
) -> TopKIterations: ...


@overload
def topk(
    x: Any,
    k: Any,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = True,
    *,
    algo: str = "auto",
    max_iter: Optional[int] = None,
    precision: float = 0.0,
    recall: Optional[float] = None,
    return_iterations: Literal[False] = False,
    indices_dtype: object = None,
    lengths: Any = None,
    hint: Any = None,
    return_threshold: Literal[True],
    width: Optional[int] = None,
    out: Optional[Tuple[Any, Any]] = None,
) -> TopKThreshold: ...


@overload
def topk(
    x: Any,
    k: Any,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = True,
    *,
    algo: str = "auto",
    max_iter: Optional[int] = None,
    precision: float = 0.0,
    recall: Optional[float] = None,
    return_iterations: Literal[True],
    indices_dtype: object = None,
    lengths: Any = None,
    hint: Any = None,
    return_threshold: Literal[True],
    width: Optional[int] = None,
    out: Optional[Tuple[Any, Any]] = None,
) -> TopKIterationsThreshold: ...


def topk(
    x: Any,
    k: Any,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = True,
    *,
    algo: str = "auto",
    max_iter: Optional[int] = None,
    precision: float = 0.0,
    recall: Optional[float] = None,
    return_iterations: bool = False,
    indices_dtype: object = None,
    lengths: Any = None,
    hint: Any = None,
    return_threshold: bool = False,
    width: Optional[int] = None,
    out: Optional[Tuple[Any, Any]] = None,
) -> Result:
    """The ``k`` largest (or smallest) values of ``x`` along ``dim``, and their indices.

    Called like ``torch.topk``, with its defaults (``dim=-1``, ``largest=True``,
    ``sorted=True``) and its argument types (an integer ``k`` and ``dim``: a bool there is a
    ``TypeError``; booleans ``largest`` and ``sorted``); returns ``TopK(values, indices)``, or
    ``TopKIterations(values, indices, iterations)`` with ``return_iterations=True`` (and
    :class:`TopKThreshold` / :class:`TopKIterationsThreshold` with ``return_threshold=True``).
    The answer is the canonical top-k of docs/contract.md §1: every NaN ranks above ``+inf``,
    ``-0.0 == +0.0``, and among equal values the lower index wins; the selected set is the
    same for every exact algorithm and device.

    Rows of their own length, a k per row and threshold hints (docs/contract.md §5):
    ``lengths`` makes row ``i`` its first ``lengths[i]`` values (the rest is never selected),
    ``k`` may give one k per row, and row ``i`` then selects ``min(k[i], lengths[i])``
    values, padded up to the output width (the largest ``k[i]``) with index -1 and value 0.
    ``hint`` changes only the work, never the answer. NumPy arrays and CPU tensors take them
    with every CPU algorithm (the warp simulator included), CUDA tensors with the GPU kernel
    (which reads them from device arrays, see :mod:`rtopk.ops`).

    Args:
        x: a NumPy array (or array-like) or torch tensor of float32, float16, bfloat16
            (``ml_dtypes.bfloat16`` for NumPy), float64, int8, uint8, int16, int32 or int64,
            any rank (0-d: one row of one value), CPU or CUDA. Values come back in the
            input's dtype, bit for bit. Integers rank in their usual order, float64 like the
            other floats (docs/contract.md §1). The CUDA kernel takes every one of them, each
            in its own dtype (16-bit rows need compute capability 8.0; float64 and int64 rows
            run on 64-bit keys, with every per-row input and the threshold output as well).
        k: values per row: an integer, ``0 <= k <= M`` where ``M = x.shape[dim]``; or one
            integer per row (a 1-D integer array, list or tensor — or one of the input's
            shape without ``dim``), each ``0 <= k[i] <= M``. For a CUDA input, a per-row k
            may be an integer tensor on its device (see ``width``) or host values (checked,
            then copied to the GPU).
        dim: the axis the rows run along.
        largest: the ``k`` largest (default) or the ``k`` smallest (NaNs then come last).
        sorted: ``True`` (default, as ``torch.topk``): value order (descending; ascending for
            ``largest=False``), ties by index; ``False``: ascending index order (the kernel's
            natural order, no sort pass: cheaper on a GPU).
        algo: ``"auto"`` (``bisect`` on the CPU, rows long against ``k`` on ``heap``; ``cuda``
            on a GPU: :func:`auto_algorithm`), or any name of
            :func:`rtopk.algorithms` (docs/contract.md §4; ``cuda`` on a NumPy array copies it
            to GPU 0 and back).
        max_iter: early stopping (RTop-K Algorithm 2) after this many bisection steps:
            approximate by design (docs/contract.md §2). ``bisect``, ``sim`` and ``cuda`` only.
        precision: Algorithm 1's precision ε' > 0 (relative to the row maximum): approximate.
        recall: a recall target ``0 < recall <= 1`` (docs/contract.md §6): exact bisection
            that stops once every row holds at least ``ceil(recall·k)`` of its exact top k, so
            each row's recall is at least ``recall`` on any data; the indices stay distinct and
            inside the row, the values the input's bits. ``1.0`` is exact. ``bisect``, ``sim``
            and ``cuda`` only (``auto`` picks them); not with ``max_iter`` or ``precision``; a
            ``hint`` is taken and ignored.
        return_iterations: also return each row's bisection iteration count
            (docs/contract.md §3; 0 for a row that selects nothing).
        indices_dtype: int64 (default, as ``torch.topk``) or int32 (``numpy.int32`` /
            ``torch.int32``; the CUDA kernel writes that width directly).
        lengths: one integer per row, ``0 <= lengths[i] <= M`` (same shapes as a per-row k).
            For a CUDA input, a tensor on its device is read there (never on the host): its
            values are not checked but clamped to ``[0, M]`` on the GPU; host lengths are
            checked, then copied to the GPU.
        hint: one float per row, a guess of the row's threshold (e.g. the ``threshold`` of the
            previous call on similar rows); any value, NaN and ±inf included. For a CUDA
            input, a tensor on its device (any float dtype; read as float32) or host values.
        return_threshold: also return each row's threshold (see :class:`TopKThreshold`); on a
            CUDA input an ``(N,)`` float32 tensor on its device.
        width: the output width of a per-row ``k`` (``>=`` every ``k[i]``; columns past a
            row's selection are padding, as are columns past M). By default the largest
            ``k[i]``, read from ``k``: give it when ``k`` is a CUDA tensor — reading it is a
            host synchronisation, refused while a CUDA graph is captured — and under
            ``torch.compile`` (the output shape must not depend on ``k``'s values). A host
            ``k`` above the width is a ``ValueError``; a CUDA ``k`` is not read on the host,
            so its entries are clamped to ``[0, width]`` on the GPU instead.
        out: ``(values, indices)``, as ``torch.topk``'s ``out=``: arrays (tensors for a tensor
            input, on its device) of the result's shape and dtypes, written in place and
            returned (on a CUDA tensor, a device copy on the current stream: capturable in a
            CUDA graph, whose replays refill the same buffers). A tensor with no elements is
            resized, as torch does; any other shape, dtype or device is refused before
            anything is written.

    Cost: the input is read in place (copied only when its strides cannot describe the rows,
    see the module docstring); the outputs are allocated once. On the CPU the rows run in
    parallel on every core with the GIL released; a CUDA tensor costs one kernel launch (two
    with ``sorted=True``) on the current stream, no synchronisation (lengths and a per-row k on
    the GPU are read as they are when int32, and add a small converting kernel each
    otherwise; a per-row GPU ``k`` without ``width`` costs one synchronisation). The outputs
    of a plain eager CUDA call of at most 512 results are cut from a slab of torch's caching
    allocator shared with later calls' (``rtopk.cuda.release_slabs``): tensors of their own,
    with their own version counters, but like ``torch.split``'s pieces not to be grown in place
    with ``resize_``.

    Raises:
        ValueError: ``k < 0``, ``k > M``, ``M = 0``, an unknown ``algo``, a parameter the
            algorithm does not take, ``max_iter`` together with ``precision``, ``recall``
            outside ``(0, 1]`` or with ``max_iter`` or ``precision``; per-row inputs
            of the wrong length, lengths above M or below 0, per-row inputs given to an
            algorithm that does not take them yet.
        TypeError: a dtype rtopk does not take (or the algorithm asked for), an
            ``out`` that is not two arrays or tensors of the result's dtypes, ``indices_dtype``, a
            non-number ``recall``, a
            bool or a non-integer for ``k`` or ``dim``, a non-bool ``largest`` or ``sorted``,
            non-integer ``lengths`` or per-row ``k``.
        IndexError: ``dim`` out of range.
        rtopk.CudaUnavailableError: a GPU algorithm without a CUDA driver.
    """
    plain_path, ragged_path = _EAGER.topk_plain, _EAGER.topk_cuda_ragged
    if (
        plain_path is not None
        and ragged_path is not None
        and dim == -1
        and algo == "auto"
        and max_iter is None
        and precision == 0.0
        and recall is None
        and not return_iterations
        and indices_dtype is None
        and out is None
    ):
        if type(k) is int and lengths is None and hint is None and width is None:
            if not return_threshold:
                plain = plain_path(x, k, largest, sorted)
                if plain is not None:
                    return TopK(*plain)
        elif type(return_threshold) is bool:
            flags = (largest, sorted, return_threshold)
            ragged = ragged_path(x, k, lengths, hint, width, flags)
            if ragged is not None:
                values, indices, threshold = ragged
                if return_threshold:
                    return TopKThreshold(values, indices, threshold)
                return TopK(values, indices)
    dim = check_dim(dim)
    rows = PerRow(k if is_per_row_k(k) else None, lengths, hint)
    if rows.k is not None:
        k = WIDEST if width is None else _width(width)
    elif width is not None:
        raise ValueError("width is the output width of a per-row k; with one k it is k")
    a = ask(
        k,
        largest,
        sorted,
        algo,
        max_iter,
        precision,
        return_iterations,
        indices_dtype,
        return_threshold,
        recall,
    )
    if _is_tensor(x):
        values, indices, its, threshold = _tensor_topk(x, dim, a, rows)
    else:
        values, indices, its, threshold = select_host(host_array(x), dim, a, rows=rows)
    if out is not None:
        values, indices = _into(out, values, indices)
    if return_threshold:
        if return_iterations:
            return TopKIterationsThreshold(values, indices, its, threshold)
        return TopKThreshold(values, indices, threshold)
    if return_iterations:
        return TopKIterations(values, indices, its)
    return TopK(values, indices)


def _into(out: Any, values: Any, indices: Any) -> Tuple[Any, Any]:
    """``values`` and ``indices`` written into ``out`` (``torch.topk``'s ``out=``), which is
    returned; every check comes before the first write."""
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(f"out must be a tuple (values, indices), got {type(out).__name__}")
    pairs = (("values", out[0], values), ("indices", out[1], indices))
    resize = [_check_out(name, dst, src) for name, dst, src in pairs]
    for (_, dst, src), grow in zip(pairs, resize):
        if grow:
            dst.resize_(src.shape)
        if _is_tensor(dst):
            dst.copy_(src)
        else:
            import numpy as np

            np.copyto(dst, src)
    return out[0], out[1]


def _check_out(name: str, dst: Any, src: Any) -> bool:
    """Checks that ``dst`` can take ``src`` (same kind, dtype, device and shape); returns
    whether it must be resized first (an empty tensor, as torch resizes it)."""
    tensor = _is_tensor(src)
    kind = "tensor" if tensor else "NumPy array"
    if _is_tensor(dst) != tensor or not hasattr(dst, "shape"):
        raise TypeError(f"out {name} must be a {kind} for this input, got {type(dst).__name__}")
    if dst.dtype != src.dtype:
        raise TypeError(f"out {name} has dtype {dst.dtype}; the result's is {src.dtype}")
    if tensor and dst.device != src.device:
        raise ValueError(f"out {name} is on {dst.device}; the result is on {src.device}")
    if tuple(dst.shape) == tuple(src.shape):
        if not tensor and not dst.flags.writeable:
            raise ValueError(f"out {name} is read-only")
        return False
    if tensor and dst.numel() == 0:
        return True
    raise ValueError(f"out {name} has shape {tuple(dst.shape)}; the result's is {tuple(src.shape)}")


def _width(width: Any) -> int:
    """The output width a caller gave: an integer >= 0."""
    w = check_integer("width", width)
    if w < 0:
        raise ValueError(f"width must be >= 0, got {w}")
    return w


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
        self.topk: Optional[Callable[[Any, int, Ask, PerRow], Outputs]] = None


_TENSOR_PATH = _TensorPath()


class _EagerPath:
    """:func:`rtopk._eager.topk_plain` and :func:`rtopk._eager.topk_cuda_ragged`, the eager
    paths of a plain call (on a CPU or CUDA tensor) and of a ragged one (a k per row or
    lengths, as device tensors, on a CUDA tensor), set with :data:`_TENSOR_PATH` by the first
    eager tensor call; ``None`` before."""

    __slots__ = ("topk_cuda_ragged", "topk_plain")

    def __init__(self) -> None:
        self.topk_plain: Optional[Callable[[Any, int, Any, Any], Optional[Tuple[Any, Any]]]] = None
        self.topk_cuda_ragged: Optional[
            Callable[
                [Any, Any, Any, Any, Any, Tuple[Any, Any, bool]], Optional[Tuple[Any, Any, Any]]
            ]
        ] = None


_EAGER = _EagerPath()


def _tensor_topk(x: Any, dim: int, a: Ask, rows: PerRow) -> Outputs:
    """The tensor path (:mod:`rtopk.ops`). A 0-d tensor is one row of one value, as
    ``torch.topk`` takes it: 0-d outputs for ``k = 1``, empty ones for ``k = 0``."""
    if x.dim() == 0:
        if dim not in (0, -1):
            raise IndexError(f"dim {dim} is out of range for a 0-d input (expected -1 or 0)")
        v, i, its, th = _tensor_topk(x.reshape(1), -1, a, rows)
        shape = () if v.shape[-1] == 1 else (0,)
        return (
            v.reshape(shape),
            i.reshape(shape),
            None if its is None else its.reshape(()),
            None if th is None else th.reshape(()),
        )
    path = _TENSOR_PATH.topk
    if path is None:
        import torch

        from .ops import topk_tensor

        path = topk_tensor
        if not torch.compiler.is_compiling():
            from ._eager import topk_cuda_ragged, topk_plain

            _TENSOR_PATH.topk = path
            _EAGER.topk_plain = topk_plain
            _EAGER.topk_cuda_ragged = topk_cuda_ragged
    return path(x, dim, a, rows)
