"""The eager path of :func:`rtopk.topk` on a CUDA tensor in its plainest call — ``k`` an
integer, the last dimension, no option beyond ``largest`` and ``sorted`` — as cheap in host
time as ``torch.topk`` (docs/performance.md, "Host time per call"): no argument object is
rebuilt (the native request is kept per ``(k, largest, sorted, dtype, device)``), the outputs
come from torch's caching allocator and the launch goes straight to the native module. The
same call on a contiguous CPU tensor keeps its request the same way and hands the tensor's
rows to the native row-wise driver as a NumPy view (:func:`topk_plain`). A
ragged call (docs/contract.md §5) whose per-row inputs are tensors on the input's device (k and
lengths int32 or int64, hints float32), with nothing else asked for but the thresholds, takes
a path of the same kind (:func:`topk_cuda_ragged`).

Small outputs are carved from slabs. Allocating a tensor from Python costs ~2.5 µs (the
argument parsing and the dispatcher around the caching allocator), twice a call, where
torch.topk allocates in C++; a slab is one allocation of ``_SLAB_COUNT`` calls' outputs, cut
by ``torch.unsafe_split`` into tensors that share its memory but nothing else: each has its own
version counter and no ``_base``, so autograd and in-place ops treat them as separate tensors.
A slab is freed when its last piece is (the spare ones with
:func:`rtopk.cuda.release_slabs`). Slabs are kept per output shape, dtype, device and
stream (the caching allocator recycles memory per stream), never made while a CUDA graph is
captured (its outputs come from the graph's pool, as torch's do), and only for outputs of at
most ``_SLAB_PIECE_ELEMENTS``. Like the pieces of ``torch.split``, a piece must not be grown in
place (``resize_`` to more elements): its neighbours follow it in memory.

Every other call, and every call this path cannot take as it stands (autograd, tracing, a
tensor subclass, a non-contiguous or 0-d input, ``k`` out of range, a dtype the kernel does
not take), returns ``None`` here and takes the general path, which checks and explains.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
import torch
from torch import Tensor

from . import _native
from ._request import ask, device_request, native

_KERNEL_DTYPES = {
    torch.float32: "float32",
    torch.float16: "float16",
    torch.bfloat16: "bfloat16",
    torch.int8: "int8",
    torch.uint8: "uint8",
    torch.int16: "int16",
    torch.int32: "int32",
    torch.float64: "float64",
    torch.int64: "int64",
}
_REQUESTS: Dict[Tuple[int, bool, bool, Any, int], Any] = {}
_RAGGED_REQUESTS: Dict[Tuple[Any, ...], Any] = {}
_CPU_REQUESTS: Dict[Tuple[int, bool, bool, Any], Any] = {}
# 16-bit floats reach the native driver as their bit patterns (NumPy has no bfloat16)
_SIXTEEN_BIT = (torch.float16, torch.bfloat16)
_int16 = torch.int16
_int32 = torch.int32
_float32 = torch.float32
_PER_ROW_DTYPES = (torch.int32, torch.int64)
_MOST_REQUESTS = 1024
_is_compiling = torch.compiler.is_compiling
_grad_enabled = torch.is_grad_enabled
_int64 = torch.int64
_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
_capturing = getattr(torch._C, "_cuda_isCurrentStreamCapturing", lambda: False)
_unsafe_split = torch.unsafe_split
# a slab: at most 64 calls' outputs of at most 512 elements each, and 8192 elements in all
# (64 KiB of int64 indices); at most 64 (shape, dtype, device, stream) keys keep one
_SLAB_COUNT = 64
_SLAB_PIECE_ELEMENTS = 512
_SLAB_ELEMENTS = 8192
_MOST_SLABS = 64
_FREE: Dict[Tuple[Any, ...], List[Tuple[Tensor, Tensor]]] = {}


def _stream(device: int) -> int:
    if _raw_stream is not None:
        return int(_raw_stream(device))
    return int(torch.cuda.current_stream(device).cuda_stream)


def words_of_int64(v: Tensor, bound: int, stream: int) -> Tensor:
    """A contiguous int64 tensor on the GPU as int32 words clamped to ``[0, bound]``, written
    by ``per_row_words`` (kernels/utilities.cu) on ``stream``, torch's current stream of its
    device, which the select that reads them follows (the caching allocator hands ``v``'s
    memory, if freed, only to work queued after)."""
    out = torch.empty(v.shape, dtype=_int32, device=v.device)
    _native.cuda_per_row_words(
        v.get_device(), (v.data_ptr(), out.data_ptr()), v.numel(), bound, stream
    )
    return out


def _kept(
    store: Dict[Any, Any], key: Tuple[Any, ...], dtype: Any, build: Callable[[str], Any]
) -> Optional[Any]:
    """``store[key]``, or the native request ``build`` makes for the kernel's name of
    ``dtype`` (``None`` where the kernel does not take it, or ``build`` refuses), kept there:
    a request is built and checked once per key."""
    request = store.get(key)
    if request is not None:
        return request
    element = _KERNEL_DTYPES.get(dtype)
    request = None if element is None else build(element)
    if request is None:
        return None
    if len(store) >= _MOST_REQUESTS:
        store.clear()
    store[key] = request
    return request


def _cpu_request(k: int, largest: bool, sorted: bool, x: Tensor) -> Optional[Any]:
    """The native request of this plain call on a CPU tensor, built and checked once per key."""

    def build(element: str) -> Any:
        return native(ask(k, largest, sorted, "auto", None, 0.0, False, None), element, "cpu")

    return _kept(_CPU_REQUESTS, (k, largest, sorted, x.dtype), x.dtype, build)


def _request(k: int, largest: Any, sorted: Any, x: Tensor, device: int) -> Optional[Any]:
    """The native request of this plain call, built and checked once per key."""
    if type(largest) is not bool or type(sorted) is not bool:
        return None  # 1 == True: the key alone would take an int for a flag

    def build(element: str) -> Any:
        plain = ask(k, largest, sorted, "auto", None, 0.0, False, None)
        return native(plain, element, f"cuda:{device}")

    return _kept(_REQUESTS, (k, largest, sorted, x.dtype, device), x.dtype, build)


def _outputs(
    x: Tensor, shape: Tuple[int, ...], size: int, device: int, stream: int
) -> Tuple[Tensor, Tensor]:
    """Empty ``(values, indices)`` of ``shape`` (``size`` elements each) for a launch on
    ``stream``: the next pieces of this key's slab, or two fresh tensors where no slab serves
    (large or empty outputs, and every call while a graph is captured: a captured kernel writes
    its outputs on every replay, so they must live in the graph's own pool)."""
    if 0 < size <= _SLAB_PIECE_ELEMENTS and not _capturing():
        key = (shape, x.dtype, device, stream)
        free = _FREE.get(key)
        if free:
            return free.pop()
        return _refill(x, shape, size, key)
    return x.new_empty(shape), x.new_empty(shape, dtype=_int64)


def _refill(
    x: Tensor, shape: Tuple[int, ...], size: int, key: Tuple[Any, ...]
) -> Tuple[Tensor, Tensor]:
    """A new slab for ``key``: its first pieces, the rest kept for the next calls."""
    count = min(_SLAB_COUNT, _SLAB_ELEMENTS // size)
    rows = (count * shape[0], *shape[1:])
    values = _unsafe_split(x.new_empty(rows), shape[0])
    indices = _unsafe_split(x.new_empty(rows, dtype=_int64), shape[0])
    if len(_FREE) >= _MOST_SLABS:
        _FREE.clear()  # the pieces given out keep their slabs alive; the rest are let go
    free = list(zip(values, indices))
    first = free.pop()
    _FREE[key] = free
    return first


def release_slabs() -> None:
    """Lets go of every slab's spare pieces (:func:`rtopk.cuda.release_slabs`)."""
    _FREE.clear()


def topk_plain(x: Any, k: int, largest: Any, sorted: Any) -> Optional[Tuple[Tensor, Tensor]]:
    """``(values, indices)`` of ``x`` (last dimension, ``k`` an int), or ``None`` where the
    general path must take the call."""
    if type(x) is not Tensor:
        return None
    if not x.is_cuda:
        return _topk_cpu(x, k, largest, sorted)
    if (x.requires_grad and _grad_enabled()) or _is_compiling() or x.is_neg():
        return None  # a negated view's memory is not its values: the general path resolves it
    shape = x.shape
    if not shape or not x.is_contiguous():
        return None
    m = shape[-1]
    if k < 0 or k > m or m == 0:
        return None
    if type(largest) is not bool or type(sorted) is not bool:
        return None  # 1 == True, and a list is no key: the general path explains
    device = x.get_device()
    request = _REQUESTS.get((k, largest, sorted, x.dtype, device))
    if request is None:
        request = _request(k, largest, sorted, x, device)
        if request is None:
            return None
    n = x.numel() // m
    stream = _raw_stream(device) if _raw_stream is not None else _stream(device)
    values, indices = _outputs(x, (*shape[:-1], k), n * k, device, stream)
    pointers = (x.data_ptr(), values.data_ptr(), indices.data_ptr(), 0, 0, 0, 0, 0)
    _native.cuda_launch(request, n, m, pointers, stream)
    return values, indices


def _topk_cpu(x: Tensor, k: int, largest: Any, sorted: Any) -> Optional[Tuple[Tensor, Tensor]]:
    """:func:`topk_plain` on a contiguous CPU tensor (not one that requires grad: autograd
    takes the op): the rows viewed as NumPy's ``(n, M)``, selected by the native driver,
    returned as tensors over its outputs (no copy)."""
    if _is_compiling() or x.requires_grad or not x.is_cpu or x.is_neg():
        return None  # a negated view (torch._neg_view) has no NumPy view: the general path
    shape = x.shape
    if not shape or not x.is_contiguous():
        return None
    m = shape[-1]
    if k < 0 or k > m or m == 0 or x.numel() == 0:
        return None
    if type(largest) is not bool or type(sorted) is not bool:
        return None  # 1 == True: the key alone would take an int for a flag
    dtype = x.dtype
    request = _CPU_REQUESTS.get((k, largest, sorted, dtype))
    if request is None:
        request = _cpu_request(k, largest, sorted, x)
        if request is None:
            return None
    sixteen = dtype in _SIXTEEN_BIT
    rows = x.view(_int16).numpy().view(np.uint16) if sixteen else x.numpy()
    if len(shape) != 2:
        rows = rows.reshape(-1, m)  # a view: the tensor is contiguous
    values, indices, _, _ = _native.select(rows, request)
    if len(shape) != 2:
        out = (*shape[:-1], k)
        values, indices = values.reshape(out), indices.reshape(out)
    if sixteen:
        return torch.from_numpy(values.view(np.int16)).view(dtype), torch.from_numpy(indices)
    return torch.from_numpy(values), torch.from_numpy(indices)


def _plain_entries(v: Any, x: Tensor, n: int, dtypes: Tuple[Any, ...]) -> bool:
    """Whether a per-row input is one the ragged eager path takes: a contiguous ``(n,)``
    tensor of one of ``dtypes`` on ``x``'s device (anything else: the general path checks,
    converts or refuses it)."""
    if type(v) is not Tensor or v.dtype not in dtypes or v.device != x.device:
        return False
    return bool(v.shape == (n,) and v.is_contiguous())


def _words(v: Tensor, bound: int, stream: int) -> Tensor:
    """A taken per-row input of k or lengths as the kernel reads it: an int32 tensor as it is,
    an int64 one converted (``words_of_int64``)."""
    return v if v.dtype == _int32 else words_of_int64(v, bound, stream)


def _ragged_request(
    width: int,
    largest: bool,
    sorted: bool,
    threshold: bool,
    x: Tensor,
    shape: Tuple[int, int],
    has: Tuple[bool, bool, bool],
) -> Optional[Any]:
    """The native request of a ragged eager call (``has``: a per-row k, lengths, hints;
    ``threshold``: the thresholds asked for), built and checked once per key."""
    device = x.get_device()

    def build(element: str) -> Any:
        try:
            a = ask(width, largest, sorted, "auto", None, 0.0, False, None, threshold)
            return device_request(a, element, f"cuda:{device}", shape[0], shape[1], *has)
        except (ValueError, TypeError):
            return None  # the general path refuses it, with its own message

    key = (width, largest, sorted, threshold, x.dtype, device, shape, has)
    return _kept(_RAGGED_REQUESTS, key, x.dtype, build)


def topk_cuda_ragged(
    x: Any, k: Any, lengths: Any, hint: Any, width: Any, flags: Tuple[Any, Any, bool]
) -> Optional[Tuple[Tensor, Tensor, Optional[Tensor]]]:
    """``(values, indices, threshold)`` of rows of their own length and k (docs/contract.md
    §5) on a 2-D CUDA tensor — ``k`` an int, or an ``(n,)`` tensor with ``width`` (the output
    width, 1 to M) — where the per-row inputs are tensors on ``x``'s device: k and lengths
    int32 or int64, hints float32. ``flags``: ``(largest, sorted, return_threshold)``;
    ``threshold`` is ``None`` unless asked for. What a sampler with a k per request, or a decode
    loop hinted with the previous step's thresholds, passes every step: the same kernels as the
    general path, without its argument objects (the request kept per key, int32 entries and
    hints passed as they are, the outputs from the slabs). ``None`` for anything else."""
    largest, sorted, want_threshold = flags
    if type(x) is not Tensor or not x.is_cuda or x.dim() != 2 or not x.is_contiguous():
        return None
    if (x.requires_grad and _grad_enabled()) or _is_compiling() or x.is_neg():
        return None  # a negated view's memory is not its values: the general path resolves it
    if type(largest) is not bool or type(sorted) is not bool:
        return None
    n, m = x.shape
    if m == 0 or m >= 2**31:  # past 2^31 the kernel reads every word as a u32
        return None
    if type(k) is int:
        if width is not None:
            return None
        out_k = k
    elif type(k) is Tensor and type(width) is int:
        out_k = width
    else:
        return None
    if out_k <= 0 or out_k > m:  # k = 0 launches nothing: the general path writes NaN thresholds
        return None
    # every per-row input is checked before any is converted: a call the general path takes
    # launches nothing here
    if type(k) is not int and not _plain_entries(k, x, n, _PER_ROW_DTYPES):
        return None
    if lengths is not None and not _plain_entries(lengths, x, n, _PER_ROW_DTYPES):
        return None
    if hint is not None and not _plain_entries(hint, x, n, (_float32,)):
        return None
    has = (type(k) is not int, lengths is not None, hint is not None)
    request = _ragged_request(out_k, largest, sorted, want_threshold, x, (n, m), has)
    if request is None:
        return None
    device = x.get_device()
    stream = _raw_stream(device) if _raw_stream is not None else _stream(device)
    ks = None if type(k) is int else _words(k, out_k, stream)
    found = None if lengths is None else _words(lengths, m, stream)
    values, indices = _outputs(x, (n, out_k), n * out_k, device, stream)
    threshold = x.new_empty((n,), dtype=_float32) if want_threshold else None
    pointers = (
        x.data_ptr(),
        values.data_ptr(),
        indices.data_ptr(),
        0,
        0 if found is None else found.data_ptr(),
        0 if ks is None else ks.data_ptr(),
        0 if hint is None else hint.data_ptr(),
        0 if threshold is None else threshold.data_ptr(),
    )
    _native.cuda_launch(request, n, m, pointers, stream)
    return values, indices, threshold
