"""``rtopk.grouped_topk``: grouped selection (docs/contract.md §8), the router of
mixture-of-experts models that choose experts in two stages (DeepSeek-V3: 256 experts in 8
groups, the 4 best groups by the sum of their two best scores, the 8 best experts among them).

* **NumPy arrays** (and array-likes) and **torch CPU tensors** — the library's
  ``rtopk::grouped::select_grouped`` with the interpreter released (``algo``: ``"auto"`` and
  ``"reference"``, the CPU reference; ``"sim"``, the kernel on the warp simulator; ``"cuda"``,
  the kernel on GPU 0, the rows copied there and back). A CPU tensor goes as a NumPy view of
  its storage (a bfloat16 one as its bit patterns), its outputs come back as tensors.
* **torch CUDA tensors** — one launch of the grouped kernel on the tensor's device and torch's
  current stream, the outputs allocated by torch there: no synchronisation, capturable in a
  CUDA graph once the kernel is built (the first call of a dtype on a device builds it).

Every path returns the same answer, bit for bit: values are the input's own bits (NaN payloads
and ``-0.0`` kept) in its dtype, indices int64, each row sorted in docs/contract.md §1's order.
The selection is not differentiable (the values are detached); a router that needs gradients
gathers its weights with the indices (``scores.gather(-1, indices)``).
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Optional, Tuple

import numpy as np

from . import _native
from ._host import SIXTEEN_BIT, host_array
from ._request import check_integer
from ._topk import TopK

__all__ = ["grouped_topk"]

# What a CUDA tensor takes for ``algo``: the kernel, by either name.
_CUDA_ALGOS = ("auto", "cuda")


def grouped_topk(
    scores: Any,
    k: Any,
    num_groups: Any,
    topk_groups: Any,
    *,
    group_score: str = "sum2",
    algo: str = "auto",
) -> TopK:
    """The ``k`` best experts of each row of ``scores`` among its ``topk_groups`` best groups.

    A row's ``M`` scores fall into ``num_groups`` groups of ``M / num_groups`` consecutive
    experts. Each group is scored by its largest value (``group_score="max"``) or by the
    float32 sum of its two largest (``"sum2"``, the default; groups of at least two); the
    ``topk_groups`` best groups are kept, and the row's ``k`` best experts among them are
    returned, sorted: value descending, every NaN above ``+inf``, ``-0.0 == +0.0``, ties (of
    experts and of groups) to the lower index (docs/contract.md §1, §8).

    Args:
        scores: a 2-D ``(N, M)`` NumPy array (or array-like) or torch tensor (CPU or CUDA) of
            float32, float16 or bfloat16 (``ml_dtypes.bfloat16`` for NumPy); a 1-D row is one
            row (1-D outputs). ``M <= 1024``.
        k: experts per row, ``0 <= k <= topk_groups * (M / num_groups)``.
        num_groups: groups per row, 1 to 32, dividing ``M``.
        topk_groups: groups kept, ``1 <= topk_groups <= num_groups``.
        group_score: ``"sum2"`` (DeepSeek-V3) or ``"max"`` (DeepSeek-V2).
        algo: ``"auto"``; on the host also ``"reference"``, ``"sim"`` or ``"cuda"``; on a
            CUDA tensor ``"cuda"``.

    Returns:
        ``TopK(values, indices)``: ``(N, k)`` values in the input's dtype and ``(N, k)`` int64
        indices — NumPy arrays for a NumPy input, tensors on the input's device for a tensor.

    Raises:
        ValueError: a selection that does not fit the rows (``num_groups`` not dividing ``M``,
            ``topk_groups`` out of range, ``k`` too large, ``M`` above 1024 or 0, ``"sum2"``
            on groups of one), a negative count, an unknown ``group_score`` or ``algo``, an
            input that is not 1-D or 2-D.
        TypeError: a dtype other than float32, float16 and bfloat16; a bool or a non-integer
            for ``k``, ``num_groups`` or ``topk_groups``; a non-string ``group_score`` or
            ``algo``.
        rtopk.CudaUnavailableError: ``algo="cuda"`` without a CUDA driver.
    """
    k = check_integer("k", k)
    num_groups = check_integer("num_groups", num_groups)
    topk_groups = check_integer("topk_groups", topk_groups)
    for name, value in (("group_score", group_score), ("algo", algo)):
        if not isinstance(value, str):
            raise TypeError(f"argument '{name}' must be str, not {type(value).__name__}")
    call = (k, num_groups, topk_groups, group_score, algo)
    if _is_tensor(scores):
        path = _TORCH.path
        if path is None:
            path = _TORCH.load()
        values, indices = path(scores, *call)
    else:
        values, indices = _host(host_array(scores), *call)
    return TopK(values, indices)


def _rows(ndim: int) -> None:
    """``ValueError`` unless the input is one row (1-D) or a matrix of rows (2-D)."""
    if ndim not in (1, 2):
        raise ValueError(
            f"grouped_topk takes a 2-D (N, M) input of rows (or one 1-D row), got {ndim}-D"
        )


def _host(
    a: "np.ndarray[Any, Any]",
    k: int,
    groups: int,
    top_groups: int,
    score: str,
    algo: str,
    element: Optional[str] = None,
) -> Tuple["np.ndarray[Any, Any]", "np.ndarray[Any, Any]"]:
    """The host path: ``a`` (any strides) selected by the native module, outputs in ``a``'s
    dtype — or, with ``element`` (``"bfloat16"``), ``a`` is a uint16 array of that type's bit
    patterns and the values come back as uint16 bits."""
    _rows(a.ndim)
    name = element if element is not None else _float_name(a.dtype)
    # 16-bit floats travel as their bit patterns (a view: same item size, any strides)
    src = a if name not in SIXTEEN_BIT or element is not None else a.view(np.uint16)
    rows = src.reshape(1, -1) if src.ndim == 1 else src
    values, indices = _native.grouped_select(rows, name, k, groups, top_groups, score, algo)
    if src is not a:
        values = values.view(a.dtype)
    if a.ndim == 1:
        return values.reshape(-1), indices.reshape(-1)
    return values, indices


def _float_name(dtype: "np.dtype[Any]") -> str:
    """The element type of ``dtype`` if a grouped selection takes it (ml_dtypes' bfloat16
    recognised by its name and size, without importing ml_dtypes); ``TypeError`` otherwise
    (no conversion: a float64 router is converted by its caller)."""
    if dtype == np.float32:
        return "float32"
    if dtype == np.float16:
        return "float16"
    if dtype.name == "bfloat16" and dtype.itemsize == 2:
        return "bfloat16"
    raise TypeError(
        f"grouped_topk takes float32, float16 and bfloat16 scores, got dtype {dtype} "
        "(convert with .astype(numpy.float32) or .float())"
    )


def _is_tensor(x: Any) -> bool:
    """True for a torch tensor, without importing torch (by its class's module, else by
    ``isinstance`` once torch is loaded)."""
    module = type(x).__module__
    if module == "torch" or module.startswith("torch."):
        return True
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


Path = Callable[[Any, int, int, int, str, str], Tuple[Any, Any]]


class _TorchPath:
    """The tensor path, built on the first tensor (torch is in use then): an import on every
    call would cost a microsecond."""

    __slots__ = ("path",)

    def __init__(self) -> None:
        self.path: Optional[Path] = None

    def load(self) -> Path:
        self.path = _torch_path()
        return self.path


_TORCH = _TorchPath()


def _torch_path() -> Path:
    """:func:`grouped_topk` on a tensor, with torch and torch's current stream bound."""
    import torch

    from .ops import current_stream

    dtypes = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16"}
    int64 = torch.int64

    def element(x: Any) -> str:
        name = dtypes.get(x.dtype)
        if name is None:
            raise TypeError(
                f"grouped_topk takes float32, float16 and bfloat16 scores, got {x.dtype} "
                "(convert with .float())"
            )
        return name

    def cpu(x: Any, k: int, groups: int, top_groups: int, score: str, algo: str) -> Tuple[Any, Any]:
        name = element(x)
        t = x.detach().resolve_neg()  # a negated view has no NumPy view: a copy
        if name == "bfloat16":  # no NumPy dtype: its bit patterns, read in place
            a = t.view(torch.int16).numpy().view(np.uint16)
            v, i = _host(a, k, groups, top_groups, score, algo, "bfloat16")
            return torch.from_numpy(v.view(np.int16)).view(torch.bfloat16), torch.from_numpy(i)
        v, i = _host(t.numpy(), k, groups, top_groups, score, algo)
        return torch.from_numpy(v), torch.from_numpy(i)

    def cuda(
        x: Any, k: int, groups: int, top_groups: int, score: str, algo: str
    ) -> Tuple[Any, Any]:
        name = element(x)
        if algo not in _CUDA_ALGOS:
            raise ValueError(
                f"algo '{algo}' on a CUDA tensor: the GPU runs the grouped kernel "
                "('auto' or 'cuda'); the CPU algorithms take host arrays and CPU tensors"
            )
        one_row = x.dim() == 1
        _rows(x.dim())
        rows = (x.reshape(1, -1) if one_row else x).detach()
        if not rows.is_contiguous():
            rows = rows.contiguous()
        if rows.is_neg():
            rows = rows.resolve_neg()  # a negated view's memory holds the values before negation
        n, m = rows.shape
        device = rows.get_device()
        if k > m:
            # refused with the library's message before anything is allocated (n = 0: a check)
            _native.grouped_launch(
                name, 0, m, k, groups, top_groups, score, 64, (0, 0, 0), device, 0
            )
        values = rows.new_empty((n, k))
        indices = rows.new_empty((n, k), dtype=int64)
        pointers = (rows.data_ptr(), values.data_ptr(), indices.data_ptr())
        stream = current_stream(device)
        _native.grouped_launch(
            name, n, m, k, groups, top_groups, score, 64, pointers, device, stream
        )
        if one_row:
            return values.reshape(-1), indices.reshape(-1)
        return values, indices

    def path(
        x: Any, k: int, groups: int, top_groups: int, score: str, algo: str
    ) -> Tuple[Any, Any]:
        kind = x.device.type
        if kind == "cuda":
            return cuda(x, k, groups, top_groups, score, algo)
        if kind == "cpu":
            return cpu(x, k, groups, top_groups, score, algo)
        raise ValueError(f"grouped_topk runs on CPU and CUDA tensors; this one is on {x.device}")

    return path
