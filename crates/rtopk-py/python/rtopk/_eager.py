"""The eager path of :func:`rtopk.topk` on a CUDA tensor in its plainest call — ``k`` an
integer, the last dimension, no option beyond ``largest`` and ``sorted`` — as cheap in host
time as ``torch.topk`` (docs/performance.md, "Host time per call"): no argument object is
rebuilt (the native request is kept per ``(k, largest, sorted, dtype, device)``), the outputs
come from torch's caching allocator and the launch goes straight to the native module.

Every other call, and every call this path cannot take as it stands (autograd, tracing, a
tensor subclass, a non-contiguous or 0-d input, ``k`` out of range, a dtype the kernel does
not take), returns ``None`` here and takes the general path, which checks and explains.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import torch
from torch import Tensor

from . import _native
from ._request import ask, native

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
_MOST_REQUESTS = 1024
_is_compiling = torch.compiler.is_compiling
_grad_enabled = torch.is_grad_enabled
_int64 = torch.int64
_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)


def _stream(device: int) -> int:
    if _raw_stream is not None:
        return int(_raw_stream(device))
    return int(torch.cuda.current_stream(device).cuda_stream)


def _request(k: int, largest: Any, sorted: Any, x: Tensor, device: int) -> Optional[Any]:
    """The native request of this plain call, built and checked once per key."""
    if type(largest) is not bool or type(sorted) is not bool:
        return None  # 1 == True: the key alone would take an int for a flag
    key = (k, largest, sorted, x.dtype, device)
    request = _REQUESTS.get(key)
    if request is not None:
        return request
    element = _KERNEL_DTYPES.get(x.dtype)
    if element is None:
        return None
    plain = ask(k, largest, sorted, "auto", None, 0.0, False, None)
    request = native(plain, element, f"cuda:{device}")
    if len(_REQUESTS) >= _MOST_REQUESTS:
        _REQUESTS.clear()
    _REQUESTS[key] = request
    return request


def topk_cuda(x: Any, k: int, largest: Any, sorted: Any) -> Optional[Tuple[Tensor, Tensor]]:
    """``(values, indices)`` of ``x`` (last dimension, ``k`` an int), or ``None`` where the
    general path must take the call."""
    if type(x) is not Tensor or not x.is_cuda:
        return None
    if (x.requires_grad and _grad_enabled()) or _is_compiling():
        return None
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
    out_shape = (*shape[:-1], k)
    values = x.new_empty(out_shape)
    indices = x.new_empty(out_shape, dtype=_int64)
    pointers = (x.data_ptr(), values.data_ptr(), indices.data_ptr(), 0, 0, 0, 0, 0)
    stream = _raw_stream(device) if _raw_stream is not None else _stream(device)
    _native.cuda_launch(request, x.numel() // m, m, pointers, stream)
    return values, indices
