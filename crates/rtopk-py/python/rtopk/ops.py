"""PyTorch integration: the custom op ``torch.ops.rtopk.topk`` and the tensor paths of
:func:`rtopk.topk`.

Importing this module registers the op (``rtopk`` imports it by itself whenever torch is
imported, before or after ``rtopk``). The op has

* an implementation for CPU tensors (the Rust row-wise driver on a NumPy view of the tensor's
  storage, zero-copy; float32, float16 and bfloat16 — a bfloat16 tensor, which has no NumPy
  view, is viewed as its int16 bit patterns) and CUDA tensors (the RTop-K CUDA kernel, on
  float32, float16 and bfloat16 alike: a 16-bit tensor is selected in its own type, never
  upcast; values come back in it);
* a fake implementation (``register_fake``): output shapes and dtypes from the input's, so
  ``torch.compile(fullgraph=True)`` traces a call without a graph break;
* autograd (``register_autograd``): the gradient of ``values`` is scattered into zeros of the
  input's shape at ``indices`` — what ``torch.topk``'s backward does — so ``rtopk.topk``
  replaces ``torch.topk`` in training (padding, index -1, takes no gradient).

The op's schema carries the per-row inputs of docs/contract.md §5 as optional tensors
(``k_per_row``, ``lengths``, ``hint``) and the threshold output as a fourth tensor; with a
per-row k, the integer ``k`` is the output width, so the fake never reads a tensor's values
(give ``width=`` to :func:`rtopk.topk` under ``torch.compile``). CPU tensors take them;
on CUDA tensors the GPU kernel does not read them yet, and a call with any of them, or with
``return_threshold=True``, is refused with the library's message (never a wrong answer).

Eager calls that need neither autograd nor tracing skip the op and call the implementation
directly: the op dispatcher's fixed cost is several microseconds, more than the wrapper's.

Every path builds one native request (:func:`rtopk._request.native`) from the same values —
the eager call from :func:`rtopk.topk`'s checked arguments, the op and its fake
implementation from the op's arguments — so they accept and refuse the same calls.

On a CUDA tensor, a call makes the rows contiguous if they are not (``movedim`` +
``contiguous``: a copy only then), allocates the outputs with torch on the tensor's device
(``new_empty``: the caching allocator, so it is capturable by ``torch.cuda.graph``), and makes
ONE native call, ``_native.cuda_launch``, with the request (which names the device,
``cuda:N``), raw pointers and torch's current stream of that device: the kernel is launched
asynchronously on that stream — no host synchronisation, no host round trip, no device
allocation inside the call. A tensor on ``cuda:1`` runs on device 1.
"""

import math
from typing import Any, Callable, Optional, Tuple

import numpy as np
import torch
from torch import Tensor

from . import _native
from ._host import select_host
from ._request import NO_ROWS, WIDEST, Ask, PerRow, native, native_per_row, normalize_dim

__all__ = ["cpu_impl", "cuda_impl", "topk_op", "topk_tensor"]

_INDEX_DTYPES = {"int32": torch.int32, "int64": torch.int64}
# The request's name of CUDA device N (a table, not a string built on every call).
_CUDA_NAMES = tuple(f"cuda:{i}" for i in range(16))
# What both paths take, and the native module's name for each.
_DTYPE_NAMES = {
    torch.float32: "float32",
    torch.float16: "float16",
    torch.bfloat16: "bfloat16",
    torch.float64: "float64",
    torch.int8: "int8",
    torch.uint8: "uint8",
    torch.int16: "int16",
    torch.int32: "int32",
    torch.int64: "int64",
}

# The raw current stream without building a torch.cuda.Stream object (what torch.compile's
# generated code calls too); the public spelling where a torch build lacks it.
_raw_stream_of: Optional[Callable[[int], int]] = getattr(
    torch._C, "_cuda_getCurrentRawStream", None
)


def current_stream(device_index: int) -> int:
    """torch's current CUDA stream of device ``device_index``, as the raw ``cudaStream_t``."""
    if _raw_stream_of is not None:
        return _raw_stream_of(device_index)
    return int(torch.cuda.current_stream(device_index).cuda_stream)


def _dtype_name(x: Tensor) -> str:
    """``"float32"``, ``"float16"``, ...: the dtype's name without ``torch.``."""
    name = str(x.dtype)
    return name[6:] if name.startswith("torch.") else name


def _element(x: Tensor) -> str:
    """The native name of ``x``'s dtype; ``TypeError`` for a dtype rtopk.topk never takes
    (complex, bool, ...). The GPU kernel takes float32, float16 and bfloat16: on a CUDA tensor
    of another type the library refuses the request (``TypeError``, naming the algorithms
    that take it), never converting it."""
    name = _DTYPE_NAMES.get(x.dtype)
    if name is None:
        raise TypeError(_native.unsupported_dtype(_dtype_name(x)))
    return name


def _ask_of(
    k: int,
    largest: bool,
    sorted: bool,
    algo: str,
    max_iter: Optional[int],
    precision: float,
    index_bits: int,
    with_iterations: bool,
    with_threshold: bool,
) -> Ask:
    """The request values the op's arguments carry."""
    index = "int32" if index_bits == 32 else "int64" if index_bits == 64 else f"int{index_bits}"
    return Ask(
        k,
        largest,
        sorted,
        algo,
        max_iter,
        float(precision),
        with_iterations,
        index,
        with_threshold,
    )


def _index_bits(a: Ask) -> int:
    """The op's spelling of the index type: 32 or 64."""
    return 32 if a.index_dtype == "int32" else 64


Outputs = Tuple[Tensor, Tensor, Optional[Tensor], Optional[Tensor]]


def cpu_impl(x: Tensor, dim: int, a: Ask, rows: PerRow = NO_ROWS) -> Outputs:
    """A CPU tensor through the host path: ``x.numpy()`` is a view of the tensor's storage
    (no copy), the outputs are tensors over the NumPy outputs (no copy), made contiguous
    only when ``dim`` is not the last axis (as the fake implementation says they are).
    ``iterations`` and ``threshold`` are None unless asked for. A bfloat16 tensor (no NumPy
    dtype) goes as a view of its bit patterns, and its values come back the same way.
    ``rows``: the per-row inputs (CPU tensors or array-likes)."""
    _element(x)
    t = x.detach() if x.requires_grad else x
    bf16 = t.dtype == torch.bfloat16
    values, indices, its, threshold = select_host(
        t.view(torch.int16).numpy().view(np.uint16) if bf16 else t.numpy(),
        dim,
        a,
        "bfloat16" if bf16 else None,
        rows,
    )
    if bf16:
        v = torch.from_numpy(values.view(np.int16)).view(torch.bfloat16)
    else:
        v = torch.from_numpy(values)
    i = torch.from_numpy(indices)
    if not v.is_contiguous():
        v = v.contiguous()
        i = i.contiguous()
    return (
        v,
        i,
        (torch.from_numpy(its) if its is not None else None),
        (torch.from_numpy(threshold) if threshold is not None else None),
    )


def _refuse_per_row(a: Ask, element: str, device: str, rows: PerRow, n: int, m: int) -> None:
    """Per-row inputs on a CUDA tensor: the library's own refusal (the GPU kernel reads no
    lengths yet), from a request whose per-row arrays are placeholders of the right length
    (their values are never read here, so nothing waits for the GPU). Should the library
    accept it, this package still refuses: it has no device-array path for them yet."""
    zeros = np.zeros(n, dtype=np.int64)
    request = native_per_row(
        a._replace(k=max(a.k, 0)),
        element,
        device,
        None if rows.k is None else zeros,
        None if rows.lengths is None else zeros,
        None if rows.hint is None else zeros.astype(np.float32),
    )
    request.check(m, n)
    raise ValueError(
        "lengths, a per-row k and hints are taken on NumPy arrays and CPU tensors; this "
        "package does not pass them to the GPU kernel yet"
    )


def cuda_impl(x: Tensor, dim: int, a: Ask, rows: PerRow = NO_ROWS) -> Outputs:
    """A CUDA tensor: one launch of the RTop-K kernel on torch's current stream (see the
    module docstring for the contract). ``iterations`` is None unless asked for; per-row
    inputs and the threshold output are refused (the library's message)."""
    index = x.get_device()
    element = _element(x)
    device = _CUDA_NAMES[index] if index < 16 else f"cuda:{index}"
    nd = x.dim()
    last = dim == -1 or dim == nd - 1
    if last and nd > 0:
        rows_x = x
    else:
        d = normalize_dim(dim, nd)
        last = d == nd - 1
        rows_x = x if last else x.movedim(d, -1)
    if not rows_x.is_contiguous():
        rows_x = rows_x.contiguous()
    shape = rows_x.shape
    m = shape[-1]
    batch = shape[:-1]
    n = rows_x.numel() // m if m else 0
    if rows.given():
        _refuse_per_row(a, element, device, rows, n, m)
    request = native(a, element, device)
    k = a.k
    if k > m or m == 0:
        request.check(m)  # refused with the library's message before anything is allocated
    out_shape = (*batch, k)
    values = rows_x.new_empty(out_shape)
    indices = rows_x.new_empty(out_shape, dtype=_INDEX_DTYPES[a.index_dtype])
    iterations = rows_x.new_empty(batch, dtype=torch.int32) if a.iterations else None
    pointers = (
        rows_x.data_ptr(),
        values.data_ptr(),
        indices.data_ptr(),
        0 if iterations is None else iterations.data_ptr(),
    )
    # checked there, launched only for n > 0 and k > 0
    _native.cuda_launch(request, n, m, pointers, current_stream(index))
    if iterations is not None and (n == 0 or k == 0):
        iterations.zero_()  # k = 0: no search, 0 iterations (as the CPU driver reports)
    if not last:
        values = values.movedim(-1, dim).contiguous()
        indices = indices.movedim(-1, dim).contiguous()
    return values, indices, iterations, None


def impl(x: Tensor, dim: int, a: Ask, rows: PerRow) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    """The op's implementation: the CPU or the CUDA path by the tensor's device (an op
    returns tensors only: no iterations or threshold is an empty one)."""
    kind = x.device.type
    if kind == "cuda":
        path = cuda_impl
    elif kind == "cpu":
        path = cpu_impl
    else:
        raise ValueError(f"rtopk.topk runs on CPU and CUDA tensors; this one is on {x.device}")
    v, i, it, th = path(x, dim, a, rows)
    return (
        v,
        i,
        (it if it is not None else x.new_empty((0,), dtype=torch.int32)),
        (th if th is not None else x.new_empty((0,), dtype=torch.float32)),
    )


# The op's schema spells the request out (torch.library takes tensors, numbers and strings);
# the implementation and the fake turn it back into one request (_ask_of). With a per-row k
# (``k_per_row``), ``k`` is the output width, so the outputs' shape never depends on a
# tensor's values: the fake needs no data and a CUDA graph no host read. (``k = -1``: the
# largest k[i], which the CPU implementation reads off ``k_per_row``; the fake refuses it.)
@torch.library.custom_op("rtopk::topk", mutates_args=())
def topk_op(
    x: Tensor,
    k: int,
    dim: int,
    largest: bool,
    sorted: bool,
    algo: str,
    max_iter: Optional[int],
    precision: float,
    index_bits: int,
    with_iterations: bool,
    k_per_row: Optional[Tensor],
    lengths: Optional[Tensor],
    hint: Optional[Tensor],
    with_threshold: bool,
) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    """``torch.ops.rtopk.topk``: ``(values, indices, iterations, threshold)`` of ``x`` along
    ``dim`` (``iterations`` and ``threshold`` are empty unless asked for). With ``k_per_row``
    (one k per row), ``k`` is the output width (``>=`` every k). :func:`rtopk.topk` is the
    friendly spelling."""
    a = _ask_of(
        k, largest, sorted, algo, max_iter, precision, index_bits, with_iterations, with_threshold
    )
    return impl(x, dim, a, PerRow(k_per_row, lengths, hint))


@topk_op.register_fake
def _topk_fake(
    x: Tensor,
    k: int,
    dim: int,
    largest: bool,
    sorted: bool,
    algo: str,
    max_iter: Optional[int],
    precision: float,
    index_bits: int,
    with_iterations: bool,
    k_per_row: Optional[Tensor],
    lengths: Optional[Tensor],
    hint: Optional[Tensor],
    with_threshold: bool,
) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    d = normalize_dim(dim, x.dim())
    m = x.shape[d]
    element = _element(x)
    a = _ask_of(
        k, largest, sorted, algo, max_iter, precision, index_bits, with_iterations, with_threshold
    )
    shape = list(x.shape)
    batch = shape[:d] + shape[d + 1 :]
    if k_per_row is not None and k == WIDEST:
        raise ValueError(
            "a per-row k needs width= (the output width, >= every k[i]) under torch.compile "
            "and on fake or meta tensors: the outputs' shape may not depend on k's values"
        )
    if isinstance(m, int) and isinstance(k, int):
        # The request is refused while tracing, with the eager call's exception (the
        # per-row inputs' values are not known here: their lengths and the device are).
        device = f"cuda:{x.device.index or 0}" if x.device.type == "cuda" else "cpu"
        rows = PerRow(k_per_row, lengths, hint)
        n = math.prod(batch)
        if rows.given() and x.device.type == "cuda" and isinstance(n, int):
            _refuse_per_row(a, element, device, rows, n, m)
        native(a, element, device).check(m)
    shape[d] = k
    values = x.new_empty(shape)
    indices = x.new_empty(shape, dtype=_INDEX_DTYPES.get(a.index_dtype, torch.int64))
    iterations = x.new_empty(batch if with_iterations else [0], dtype=torch.int32)
    threshold = x.new_empty(batch if with_threshold else [0], dtype=torch.float32)
    return values, indices, iterations, threshold


def _setup_context(ctx: Any, inputs: Tuple[Any, ...], output: Tuple[Tensor, ...]) -> None:
    x, dim = inputs[0], inputs[2]
    ctx.dim = normalize_dim(dim, x.dim())
    ctx.input_shape = x.shape
    ctx.save_for_backward(output[1])


def _backward(
    ctx: Any, grad_values: Tensor, grad_indices: Any, grad_iterations: Any, grad_threshold: Any
) -> Tuple[Optional[Tensor], ...]:
    (indices,) = ctx.saved_tensors
    index = indices.long()
    # padding (index -1, docs/contract.md §5) takes no gradient: it adds zero at index 0; a
    # row's real indices are distinct, so adding is scattering for them
    padding = index < 0
    grad = grad_values.new_zeros(ctx.input_shape).scatter_add(
        ctx.dim, index.clamp(min=0), grad_values.masked_fill(padding, 0)
    )
    return (grad,) + (None,) * 13


topk_op.register_autograd(_backward, setup_context=_setup_context)


def _op_tensor(v: Any) -> Optional[Tensor]:
    """A per-row input as the op takes it: a tensor (array-likes converted on the CPU)."""
    return None if v is None else (v if isinstance(v, Tensor) else torch.as_tensor(v))


def topk_tensor(x: Tensor, dim: int, a: Ask, rows: PerRow = NO_ROWS) -> Outputs:
    """:func:`rtopk.topk` on a tensor: straight to the CPU or CUDA implementation in eager
    mode; through the op when tracing, for autograd, for a tensor subclass (fake, functional)
    or on another device (meta)."""
    if not (
        torch.compiler.is_compiling()
        or type(x) is not Tensor
        or (x.requires_grad and torch.is_grad_enabled())
    ):
        if x.is_cuda:
            return cuda_impl(x, dim, a, rows)
        if x.is_cpu:
            return cpu_impl(x, dim, a, rows)
    k, lengths, hint = _op_tensor(rows.k), _op_tensor(rows.lengths), _op_tensor(rows.hint)
    v, i, it, th = topk_op(
        x,
        a.k,
        dim,
        a.largest,
        a.sorted,
        a.algo,
        a.max_iter,
        a.precision,
        _index_bits(a),
        a.iterations,
        k,
        lengths,
        hint,
        a.threshold,
    )
    return v, i, (it if a.iterations else None), (th if a.threshold else None)


# the eager path of plain calls on CUDA tensors (rtopk._eager), now that torch is in use
from . import _eager  # noqa: E402, F401
