"""PyTorch integration: the custom op ``torch.ops.rtopk.topk`` and the tensor paths of
:func:`rtopk.topk`.

Importing this module registers the op (``rtopk`` imports it by itself whenever torch is
imported, before or after ``rtopk``). The op has

* an implementation for CPU tensors (the Rust row-wise driver on a NumPy view of the tensor's
  storage, zero-copy; every dtype of :func:`rtopk.topk` — a bfloat16 tensor, which has no
  NumPy view, is viewed as its int16 bit patterns) and CUDA tensors (the RTop-K CUDA kernel,
  on float32, float16, bfloat16, int8, uint8, int16, int32, float64 and int64 alike: each is
  selected in its own type, never converted; values come back in it; float64 and int64 rows
  on the kernel's 64-bit keys, per-row inputs and the threshold output included);
* a fake implementation (``register_fake``): output shapes and dtypes from the input's, so
  ``torch.compile(fullgraph=True)`` traces a call without a graph break;
* autograd (``register_autograd``): the gradient of ``values`` is scattered into zeros of the
  input's shape at ``indices`` — what ``torch.topk``'s backward does — so ``rtopk.topk``
  replaces ``torch.topk`` in training (padding, index -1, takes no gradient).

The op's schema carries the per-row inputs of docs/contract.md §5 as optional tensors
(``k_per_row``, ``lengths``, ``hint``) and the threshold output as a fourth tensor; with a
per-row k, the integer ``k`` is the output width, so the fake never reads a tensor's values
(give ``width=`` to :func:`rtopk.topk` under ``torch.compile``). CPU and CUDA tensors take
them. On a CUDA tensor the kernel reads them from device arrays, with no host
synchronisation:

* per-row inputs that are GPU tensors (on the input's device) are checked for dtype and shape
  only — their values are never read on the host — and converted on the GPU (lengths and k to
  int32, hints to float32), the **values clamped there**: a length to ``[0, M]``, a k to
  ``[0, width]``. An int32 tensor is read as it is, with no conversion launch: the kernel
  itself takes a negative entry as 0 and cuts a length to M and a k to the width. Values are
  not validated: that would synchronise with the GPU.
* per-row inputs given on the host (lists, arrays, CPU tensors) are checked value by value as
  on the CPU (the same errors), then copied to the GPU through pinned memory, without a host
  synchronisation (give GPU tensors inside a CUDA graph, which cannot capture that copy).
* the output width of a per-row k is ``width=``; without it, the largest ``k[i]``, which for a
  GPU tensor ``k`` is read back from the GPU (a host synchronisation; refused while a CUDA
  graph is being captured). A width above M pads the columns past M.
* ``return_threshold=True`` allocates the ``(N,)`` float32 threshold with torch; the kernel
  writes it.

Eager calls that need neither autograd nor tracing skip the op and call the implementation
directly: the op dispatcher's fixed cost is several microseconds, more than the wrapper's.

Every path builds one native request (:func:`rtopk._request.native`) from the same values —
the eager call from :func:`rtopk.topk`'s checked arguments, the op and its fake
implementation from the op's arguments — so they accept and refuse the same calls.

On a CUDA tensor, a call makes the rows contiguous if they are not (``movedim`` +
``contiguous``: a copy only then), allocates the outputs with torch on the tensor's device
(``new_empty``: the caching allocator, so it is capturable by ``torch.cuda.graph``), and makes
ONE native call, ``_native.cuda_launch``, with the request (which names the device,
``cuda:N``), raw pointers (the per-row arrays' among them) and torch's current stream of that
device: the kernel is launched
asynchronously on that stream — no host synchronisation, no host round trip, no device
allocation inside the call. A tensor on ``cuda:1`` runs on device 1.
"""

import functools
import math
from typing import Any, Callable, NamedTuple, Optional, Tuple

import numpy as np
import torch
from torch import Tensor

from . import _native
from ._eager import words_of_int64
from ._host import select_host
from ._request import (
    NO_ROWS,
    WIDEST,
    Ask,
    PerRow,
    check_per_row_shape,
    check_width,
    device_request,
    native,
    native_per_row,
    normalize_dim,
    per_row_arrays,
)

__all__ = ["cpu_impl", "cuda_impl", "op_options", "topk_op", "topk_tensor"]

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


def _capturing() -> bool:
    """Whether torch's current CUDA stream is capturing a CUDA graph (a host read or a host
    copy would break the capture)."""
    capturing: Callable[[], bool] = torch.cuda.is_current_stream_capturing
    return capturing()


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
    (complex, bool, ...). The GPU kernel takes every dtype of the table, float64 and int64
    included (on 64-bit keys, ragged and threshold requests too), never converting one."""
    name = _DTYPE_NAMES.get(x.dtype)
    if name is None:
        raise TypeError(_native.unsupported_dtype(_dtype_name(x)))
    return name


# The op's ``options``: the request's values other than k, ``name=value`` pairs joined by
# commas, each value as ``str`` writes it, a name left out taking its value here. One string
# instead of nine arguments: torch.library's autograd wrapper rebuilds the schema's argument
# list once per argument on every call (``fill_defaults`` in torch/_library/utils.py), so a
# call's host time grew with the square of the argument count (docs/performance.md, "Host
# time per call").
_OPTION_DEFAULTS = Ask(0, True, True, "auto", None, 0.0, False, "int64", False, None)
_OPTION_NAMES = Ask._fields[1:]


def _option_value(name: str, text: str) -> Any:
    """One option's value from its text; ``ValueError`` naming the option otherwise."""
    default = getattr(_OPTION_DEFAULTS, name)
    try:
        if isinstance(default, bool):
            if text not in ("True", "False"):
                raise ValueError
            return text == "True"
        if name in ("max_iter", "recall"):
            if text == "None":
                return None
            return int(text) if name == "max_iter" else float(text)
        if name == "precision":
            return float(text)
        return text
    except ValueError:
        raise ValueError(f"rtopk::topk option {name}={text!r} is not a valid value") from None


@functools.lru_cache(maxsize=256)
def _ask_options(options: str) -> Ask:
    """The request values an ``options`` string carries (k = 0; the op's ``k`` goes in)."""
    given = {}
    for pair in options.split(",") if options else ():
        name, sep, text = pair.strip().partition("=")
        if not sep or name not in _OPTION_NAMES:
            raise ValueError(
                f"rtopk::topk options: {pair.strip()!r} is not name=value with a name among "
                f"{', '.join(_OPTION_NAMES)}"
            )
        given[name] = _option_value(name, text.strip())
    return _OPTION_DEFAULTS._replace(**given)


def _ask_of(k: int, options: str) -> Ask:
    """The request the op's ``k`` and ``options`` carry."""
    return _ask_options(options)._replace(k=k)


def _options_text(a: Ask) -> str:
    """``a``'s options (its k aside), those that differ from the defaults."""
    if "," in a.algo:
        # no algorithm's name holds a comma: refused with the library's message, as the eager
        # call refuses it, not as an options string that does not parse
        native(a, "float32", "cpu")
    return ",".join(
        f"{name}={getattr(a, name)}"
        for name in _OPTION_NAMES
        if getattr(a, name) != getattr(_OPTION_DEFAULTS, name)
    )


_options_cached = functools.lru_cache(maxsize=256)(_options_text)


def _options_of(a: Ask) -> str:
    """``a``'s options string: cached in eager calls; traced as written under torch.compile
    (dynamo does not trace through a cache)."""
    if torch.compiler.is_compiling():
        return _options_text(a._replace(k=0))
    return _options_cached(a._replace(k=0))


def op_options(
    *,
    largest: bool = _OPTION_DEFAULTS.largest,
    sorted: bool = _OPTION_DEFAULTS.sorted,
    algo: str = _OPTION_DEFAULTS.algo,
    max_iter: Optional[int] = _OPTION_DEFAULTS.max_iter,
    precision: float = _OPTION_DEFAULTS.precision,
    iterations: bool = _OPTION_DEFAULTS.iterations,
    index_dtype: str = _OPTION_DEFAULTS.index_dtype,
    threshold: bool = _OPTION_DEFAULTS.threshold,
    recall: Optional[float] = _OPTION_DEFAULTS.recall,
) -> str:
    """The ``options`` string of ``torch.ops.rtopk.topk`` for these request values (the names
    of :func:`rtopk.topk`'s arguments; ``iterations`` and ``threshold`` ask for the third and
    fourth outputs); each default is the op's own (``_OPTION_DEFAULTS``: largest, sorted,
    ``auto``, int64 indices, nothing else asked). Only the values that differ from the
    defaults are written: ``op_options(sorted=False)`` is ``"sorted=False"``, ``op_options()``
    is ``""``."""
    a = Ask(
        0, largest, sorted, algo, max_iter, precision, iterations, index_dtype, threshold, recall
    )
    return _options_text(a)


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
    if t.is_neg():
        t = t.resolve_neg()  # a negated view (torch._neg_view) has no NumPy view: a copy
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


def _on_device(v: Any) -> bool:
    """True for a per-row input that is a tensor on a GPU (read there, never on the host)."""
    return isinstance(v, Tensor) and v.device.type != "cpu"


def _device_entries(name: str, v: Tensor, x: Tensor, batch: Tuple[int, ...], kind: str) -> Tensor:
    """A per-row input already on the GPU, checked for what needs no value (device, dtype,
    shape: nothing is read, so nothing waits for the GPU), as a 1-D tensor of one entry per
    row. ``kind``: ``"int"`` (lengths, k) or ``"float"`` (hints; integers are taken too)."""
    if v.device != x.device:
        raise ValueError(f"{name} is on {v.device}; the input is on {x.device}")
    if v.dtype == torch.bool or v.is_complex() or (kind == "int" and v.is_floating_point()):
        what = "integers" if kind == "int" else "floats"
        raise TypeError(f"{name} must be an array of {what}, not of {v.dtype}")
    check_per_row_shape(name, tuple(v.shape), batch)
    return v.reshape(math.prod(batch))


def _as_u32(v: Tensor, bound: int) -> Tensor:
    """An integer tensor on the GPU as the kernel reads it (contiguous 32-bit words), each
    entry taken as clamped to ``[0, bound]``: checking the values would cost a host
    synchronisation (and is impossible in a CUDA graph). An int32 tensor goes as it is, with no
    launch of its own: below a bound of 2^31 the kernel itself reads a negative word as 0 and
    cuts a larger one to the bound (``per_row_entry``, docs/kernel.md, "Per-row lengths and k
    on the device"). An int64 tensor (torch's default) takes one launch of the package's own
    ``per_row_words`` (a shipped unit: no torch kernel to load on a process's first call);
    other types are converted and clamped by torch on the device. Never writes ``v`` itself."""
    if v.dtype == torch.int32 and bound < 2**31:
        out = v
    elif v.dtype == torch.int32:
        out = v.clamp(0, bound)
    elif v.dtype == torch.int64:
        return words_of_int64(v.contiguous(), bound, current_stream(v.get_device()))
    elif v.dtype in (torch.int8, torch.uint8, torch.int16):
        out = v.to(torch.int32).clamp_(0, bound)  # a fresh tensor: clamped in place
    else:  # the unsigned types of newer torch builds
        out = v.to(torch.int64).clamp_(0, bound).to(torch.int32)
    return out.contiguous()


def _upload(a: "np.ndarray[Any, Any]", x: Tensor, dtype: Any) -> Tensor:
    """A checked host per-row array on ``x``'s device as ``dtype`` (a NumPy dtype): copied
    through pinned memory on the current stream, without waiting for it (torch's host
    allocator keeps the pinned block until the copy is done). A CUDA graph would replay the
    copy from a block since reused: refused there (give device tensors)."""
    if _capturing():
        raise ValueError(
            "per-row inputs given on the host (lists, arrays, CPU tensors) cannot be captured "
            "in a CUDA graph: give tensors on the input's device"
        )
    host = torch.from_numpy(np.ascontiguousarray(a, dtype=dtype)).pin_memory()
    return host.to(x.device, non_blocking=True)


class _DeviceRows(NamedTuple):
    """The per-row inputs of a CUDA call as the kernel reads them, and the output width."""

    width: int  # the outputs' width (a per-row k: the width given, or the largest k[i])
    launch: int  # the kernel's width: ``width`` cut to M (the columns past M are padding)
    k: Optional[Tensor]  # int32 (n,)
    lengths: Optional[Tensor]  # int32 (n,)
    hint: Optional[Tensor]  # float32 (n,)


def _device_rows(
    x: Tensor, rows: PerRow, a: Ask, element: str, device: str, batch: Tuple[int, ...], m: int
) -> _DeviceRows:
    """The per-row inputs of a CUDA call (docs/contract.md §5) as device arrays.

    Host inputs (lists, arrays, CPU tensors) are checked as on the CPU — every value, with the
    same messages — then copied to the device. GPU tensors are checked for device, dtype and
    shape only, and their values clamped on the device (lengths to ``[0, M]``, each k to
    ``[0, width]``); the output width of a per-row k on the GPU is ``width=`` when given, else
    the largest ``k[i]``, read back from the GPU (a host synchronisation, refused while a CUDA
    graph is being captured)."""
    n = math.prod(batch)
    host = PerRow(*(None if _on_device(v) else v for v in rows))
    hk, hl, hh = per_row_arrays(host, batch)
    dk = None
    if rows.k is not None and hk is None:
        dk = _device_entries("k", rows.k, x, batch, "int")
    width = a.k
    if hk is not None:
        check_width(width, hk)
        if width == WIDEST:
            width = int(hk.max()) if n else 0
    elif dk is not None and width == WIDEST:
        if _capturing():
            raise ValueError(
                "a per-row k on the GPU needs width= (the output width, >= every k[i]) while a "
                "CUDA graph is captured: reading the largest k[i] would synchronise with the GPU"
            )
        width = max(int(dk.max()), 0) if n else 0  # a host synchronisation (see width=)
        if width > m:
            raise ValueError(f"the largest k[i] = {width} is larger than the row width M = {m}")
    per_row_k = rows.k is not None
    launch = min(width, m) if per_row_k else width
    if hk is not None or hl is not None or hh is not None:
        # every host value checked, with the CPU path's messages
        native_per_row(a._replace(k=launch), element, device, hk, hl, hh).check(m, n)
    lengths: Optional[Tensor] = None
    if hl is not None:
        lengths = _upload(hl, x, np.int32)
    elif rows.lengths is not None:
        lengths = _as_u32(_device_entries("lengths", rows.lengths, x, batch, "int"), m)
    k: Optional[Tensor] = None
    if hk is not None:
        k = _upload(hk, x, np.int32)
    elif dk is not None:
        k = _as_u32(dk, launch)
    hint: Optional[Tensor] = None
    if hh is not None:
        hint = _upload(hh, x, np.float32)
    elif rows.hint is not None:
        h = _device_entries("hint", rows.hint, x, batch, "float")
        hint = h.to(torch.float32).contiguous()
    return _DeviceRows(width, launch, k, lengths, hint)


def _ptr(t: Optional[Tensor]) -> int:
    return 0 if t is None else int(t.data_ptr())


def cuda_impl(x: Tensor, dim: int, a: Ask, rows: PerRow = NO_ROWS) -> Outputs:
    """A CUDA tensor: one launch of the RTop-K kernel on torch's current stream (see the
    module docstring for the contract), the per-row inputs of docs/contract.md §5 read from
    device arrays. ``iterations`` and ``threshold`` are None unless asked for."""
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
    if rows_x.is_neg():
        # a negated view's memory holds the values before negation: the kernel reads memory
        rows_x = rows_x.resolve_neg()
    shape = rows_x.shape
    m = shape[-1]
    batch = tuple(shape[:-1])
    n = rows_x.numel() // m if m else 0
    if rows.given():
        if m == 0:
            native(a._replace(k=max(a.k, 0)), element, device).check(m)  # the library's refusal
        per_row = _device_rows(rows_x, rows, a, element, device, batch, m)
        width, k = per_row.width, per_row.launch
        has = (rows.k is not None, rows.lengths is not None, rows.hint is not None)
        request = device_request(a._replace(k=k), element, device, n, m, *has)
    else:
        per_row = _DeviceRows(a.k, a.k, None, None, None)
        width = k = a.k
        request = native(a, element, device)
        if k > m or m == 0:
            request.check(m)  # refused with the library's message before anything is allocated
    out_shape = (*batch, k)
    values = rows_x.new_empty(out_shape)
    indices = rows_x.new_empty(out_shape, dtype=_INDEX_DTYPES[a.index_dtype])
    iterations = rows_x.new_empty(batch, dtype=torch.int32) if a.iterations else None
    threshold = rows_x.new_empty(batch, dtype=torch.float32) if a.threshold else None
    pointers = (
        rows_x.data_ptr(),
        values.data_ptr(),
        indices.data_ptr(),
        _ptr(iterations),
        _ptr(per_row.lengths),
        _ptr(per_row.k),
        _ptr(per_row.hint),
        _ptr(threshold),
    )
    # checked there, launched only for n > 0 and k > 0
    _native.cuda_launch(request, n, m, pointers, current_stream(index))
    if n == 0 or k == 0:
        # nothing launched: no search (0 iterations, as the CPU driver reports), nothing
        # selected (threshold NaN, docs/contract.md §5)
        if iterations is not None:
            iterations.zero_()
        if threshold is not None:
            threshold.fill_(math.nan)
    if width > k:
        # a width above M: the columns past M are padding (index -1, value 0)
        pad = (*batch, width - k)
        values = torch.cat((values, values.new_zeros(pad)), dim=-1)
        indices = torch.cat((indices, indices.new_full(pad, -1)), dim=-1)
    if not last:
        values = values.movedim(-1, dim).contiguous()
        indices = indices.movedim(-1, dim).contiguous()
    return values, indices, iterations, threshold


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


# The op's schema carries the request as k, dim and the options string (torch.library takes
# tensors, numbers and strings); the implementation and the fake turn them back into one
# request (_ask_of), which is cached by the string. With a per-row k
# (``k_per_row``), ``k`` is the output width, so the outputs' shape never depends on a
# tensor's values: the fake needs no data and a CUDA graph no host read. (``k = -1``: the
# largest k[i], which the CPU implementation reads off ``k_per_row``; the fake refuses it.)
@torch.library.custom_op("rtopk::topk", mutates_args=())
def topk_op(
    x: Tensor,
    k: int,
    dim: int = -1,
    options: str = "",
    k_per_row: Optional[Tensor] = None,
    lengths: Optional[Tensor] = None,
    hint: Optional[Tensor] = None,
) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    """``torch.ops.rtopk.topk``: ``(values, indices, iterations, threshold)`` of ``x`` along
    ``dim`` (``iterations`` and ``threshold`` are empty unless asked for). ``options`` carries
    the rest of the request (:func:`op_options` writes it; ``""``: largest, sorted, 64-bit
    indices). With ``k_per_row`` (one k per row), ``k`` is the output width (``>=`` every k).
    :func:`rtopk.topk` is the friendly spelling."""
    return impl(x, dim, _ask_of(k, options), PerRow(k_per_row, lengths, hint))


@topk_op.register_fake
def _topk_fake(
    x: Tensor,
    k: int,
    dim: int = -1,
    options: str = "",
    k_per_row: Optional[Tensor] = None,
    lengths: Optional[Tensor] = None,
    hint: Optional[Tensor] = None,
) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    d = normalize_dim(dim, x.dim())
    m = x.shape[d]
    element = _element(x)
    a = _ask_of(k, options)
    shape = list(x.shape)
    batch = shape[:d] + shape[d + 1 :]
    if k_per_row is not None and k == WIDEST:
        raise ValueError(
            "a per-row k needs width= (the output width, >= every k[i]) under torch.compile "
            "and on fake or meta tensors: the outputs' shape may not depend on k's values"
        )
    n = math.prod(batch)
    if isinstance(m, int) and isinstance(k, int) and isinstance(n, int):
        # The request is refused while tracing, with the eager call's exception (the
        # per-row inputs' values are not known here: their shapes and the device are).
        device = f"cuda:{x.device.index or 0}" if x.device.type == "cuda" else "cpu"
        rows = PerRow(k_per_row, lengths, hint)
        if rows.given() and m > 0:
            for name, v in zip(("k", "lengths", "hint"), rows):
                if v is not None:
                    check_per_row_shape(name, tuple(v.shape), tuple(batch))
            # a per-row k's width may pass M: the columns past it are padding
            launch = min(k, m) if k_per_row is not None else k
            has = (k_per_row is not None, lengths is not None, hint is not None)
            device_request(a._replace(k=launch), element, device, n, m, *has)
        else:
            native(a, element, device).check(m)
    shape[d] = k
    values = x.new_empty(shape)
    indices = x.new_empty(shape, dtype=_INDEX_DTYPES.get(a.index_dtype, torch.int64))
    iterations = x.new_empty(batch if a.iterations else [0], dtype=torch.int32)
    threshold = x.new_empty(batch if a.threshold else [0], dtype=torch.float32)
    return values, indices, iterations, threshold


def _setup_context(ctx: Any, inputs: Tuple[Any, ...], output: Tuple[Tensor, ...]) -> None:
    x, dim, k_per_row, lengths = inputs[0], inputs[2], inputs[4], inputs[5]
    ctx.dim = normalize_dim(dim, x.dim())
    ctx.input_shape = x.shape
    # only a per-row k or lengths leave padding (index -1) in the indices
    ctx.padded = k_per_row is not None or lengths is not None
    ctx.save_for_backward(output[1])


def _backward(
    ctx: Any, grad_values: Tensor, grad_indices: Any, grad_iterations: Any, grad_threshold: Any
) -> Tuple[Optional[Tensor], ...]:
    (indices,) = ctx.saved_tensors
    index = indices if indices.dtype == torch.int64 else indices.long()
    zeros = grad_values.new_zeros(ctx.input_shape)
    if not ctx.padded:
        # a row's indices are distinct: torch.topk's backward, one scatter
        return (zeros.scatter(ctx.dim, index, grad_values),) + (None,) * 6
    # padding (index -1, docs/contract.md §5) takes no gradient: it adds zero at index 0, and
    # adding is scattering for the row's real indices
    padding = index < 0
    grad = zeros.scatter_add(ctx.dim, index.clamp(min=0), grad_values.masked_fill(padding, 0))
    return (grad,) + (None,) * 6


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
    v, i, it, th = topk_op(x, a.k, dim, _options_of(a), k, lengths, hint)
    return v, i, (it if a.iterations else None), (th if a.threshold else None)
