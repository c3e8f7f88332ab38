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
  replaces ``torch.topk`` in training.

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

from typing import Any, Callable, Optional, Tuple

import numpy as np
import torch
from torch import Tensor

from . import _native
from ._host import select_host
from ._request import Ask, native, normalize_dim

__all__ = ["cpu_impl", "cuda_impl", "topk_op", "topk_tensor"]

_INDEX_DTYPES = {"int32": torch.int32, "int64": torch.int64}
# The request's name of CUDA device N (a table, not a string built on every call).
_CUDA_NAMES = tuple(f"cuda:{i}" for i in range(16))
# What both paths take, and the native module's name for each.
_DTYPE_NAMES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16"}

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
    (float64, integers, ...)."""
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
) -> Ask:
    """The request values the op's arguments carry."""
    index = "int32" if index_bits == 32 else "int64" if index_bits == 64 else f"int{index_bits}"
    return Ask(k, largest, sorted, algo, max_iter, float(precision), with_iterations, index)


def _index_bits(a: Ask) -> int:
    """The op's spelling of the index type: 32 or 64."""
    return 32 if a.index_dtype == "int32" else 64


def cpu_impl(x: Tensor, dim: int, a: Ask) -> Tuple[Tensor, Tensor, Optional[Tensor]]:
    """A CPU tensor through the host path: ``x.numpy()`` is a view of the tensor's storage
    (no copy), the outputs are tensors over the NumPy outputs (no copy), made contiguous
    only when ``dim`` is not the last axis (as the fake implementation says they are).
    ``iterations`` is None unless asked for. A bfloat16 tensor (no NumPy dtype) goes as a
    view of its bit patterns, and its values come back the same way."""
    _element(x)
    t = x.detach() if x.requires_grad else x
    bf16 = t.dtype == torch.bfloat16
    values, indices, its = select_host(
        t.view(torch.int16).numpy().view(np.uint16) if bf16 else t.numpy(),
        dim,
        a,
        "bfloat16" if bf16 else None,
    )
    if bf16:
        v = torch.from_numpy(values.view(np.int16)).view(torch.bfloat16)
    else:
        v = torch.from_numpy(values)
    i = torch.from_numpy(indices)
    if not v.is_contiguous():
        v = v.contiguous()
        i = i.contiguous()
    return v, i, (torch.from_numpy(its) if its is not None else None)


def cuda_impl(x: Tensor, dim: int, a: Ask) -> Tuple[Tensor, Tensor, Optional[Tensor]]:
    """A CUDA tensor: one launch of the RTop-K kernel on torch's current stream (see the
    module docstring for the contract). ``iterations`` is None unless asked for."""
    index = x.get_device()
    request = native(a, _element(x), _CUDA_NAMES[index] if index < 16 else f"cuda:{index}")
    nd = x.dim()
    last = dim == -1 or dim == nd - 1
    if last and nd > 0:
        rows = x
    else:
        d = normalize_dim(dim, nd)
        last = d == nd - 1
        rows = x if last else x.movedim(d, -1)
    if not rows.is_contiguous():
        rows = rows.contiguous()
    shape = rows.shape
    m = shape[-1]
    batch = shape[:-1]
    k = a.k
    if k > m or m == 0:
        request.check(m)  # refused with the library's message before anything is allocated
    n = rows.numel() // m
    out_shape = (*batch, k)
    values = rows.new_empty(out_shape)
    indices = rows.new_empty(out_shape, dtype=_INDEX_DTYPES[a.index_dtype])
    iterations = rows.new_empty(batch, dtype=torch.int32) if a.iterations else None
    if n > 0 and k > 0:
        pointers = (
            rows.data_ptr(),
            values.data_ptr(),
            indices.data_ptr(),
            0 if iterations is None else iterations.data_ptr(),
        )
        _native.cuda_launch(request, n, m, pointers, current_stream(index))
    elif iterations is not None:
        iterations.zero_()  # k = 0: no search, 0 iterations (as the CPU driver reports)
    if not last:
        values = values.movedim(-1, dim).contiguous()
        indices = indices.movedim(-1, dim).contiguous()
    return values, indices, iterations


def impl(x: Tensor, dim: int, a: Ask) -> Tuple[Tensor, Tensor, Tensor]:
    """The op's implementation: the CPU or the CUDA path by the tensor's device (an op
    returns tensors only: no iterations is an empty one)."""
    kind = x.device.type
    if kind == "cuda":
        path = cuda_impl
    elif kind == "cpu":
        path = cpu_impl
    else:
        raise ValueError(f"rtopk.topk runs on CPU and CUDA tensors; this one is on {x.device}")
    v, i, it = path(x, dim, a)
    return v, i, (it if it is not None else x.new_empty((0,), dtype=torch.int32))


# The op's schema spells the request out (torch.library takes tensors, numbers and strings);
# the implementation and the fake turn it back into one request (_ask_of).
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
) -> Tuple[Tensor, Tensor, Tensor]:
    """``torch.ops.rtopk.topk``: ``(values, indices, iterations)`` of ``x`` along ``dim``
    (``iterations`` is empty unless ``with_iterations``). :func:`rtopk.topk` is the friendly
    spelling."""
    a = _ask_of(k, largest, sorted, algo, max_iter, precision, index_bits, with_iterations)
    return impl(x, dim, a)


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
) -> Tuple[Tensor, Tensor, Tensor]:
    d = normalize_dim(dim, x.dim())
    m = x.shape[d]
    element = _element(x)
    a = _ask_of(k, largest, sorted, algo, max_iter, precision, index_bits, with_iterations)
    if isinstance(m, int) and isinstance(k, int):
        # The request is refused while tracing, with the eager call's exception.
        device = f"cuda:{x.device.index or 0}" if x.device.type == "cuda" else "cpu"
        native(a, element, device).check(m)
    shape = list(x.shape)
    batch = shape[:d] + shape[d + 1 :]
    shape[d] = k
    values = x.new_empty(shape)
    indices = x.new_empty(shape, dtype=_INDEX_DTYPES.get(a.index_dtype, torch.int64))
    iterations = x.new_empty(batch if with_iterations else [0], dtype=torch.int32)
    return values, indices, iterations


def _setup_context(ctx: Any, inputs: Tuple[Any, ...], output: Tuple[Tensor, ...]) -> None:
    x, dim = inputs[0], inputs[2]
    ctx.dim = normalize_dim(dim, x.dim())
    ctx.input_shape = x.shape
    ctx.save_for_backward(output[1])


def _backward(
    ctx: Any, grad_values: Tensor, grad_indices: Any, grad_iterations: Any
) -> Tuple[Optional[Tensor], ...]:
    (indices,) = ctx.saved_tensors
    grad = grad_values.new_zeros(ctx.input_shape).scatter(ctx.dim, indices.long(), grad_values)
    return (grad,) + (None,) * 9


topk_op.register_autograd(_backward, setup_context=_setup_context)


def topk_tensor(x: Tensor, dim: int, a: Ask) -> Tuple[Tensor, Tensor, Optional[Tensor]]:
    """:func:`rtopk.topk` on a tensor: straight to the CPU or CUDA implementation in eager
    mode; through the op when tracing, for autograd, for a tensor subclass (fake, functional)
    or on another device (meta)."""
    if not (
        torch.compiler.is_compiling()
        or type(x) is not Tensor
        or (x.requires_grad and torch.is_grad_enabled())
    ):
        if x.is_cuda:
            return cuda_impl(x, dim, a)
        if x.is_cpu:
            return cpu_impl(x, dim, a)
    v, i, it = topk_op(
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
    )
    return v, i, (it if a.iterations else None)
