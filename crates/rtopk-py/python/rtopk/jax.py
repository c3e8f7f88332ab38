"""``rtopk.jax``: row-wise top-k of JAX arrays, as an XLA FFI custom call.

>>> import jax.numpy as jnp, rtopk.jax
>>> values, indices = rtopk.jax.topk(jnp.array([[0.5, 3.0, 1.0]]), 2, sorted=True)
>>> indices.tolist()
[[1, 2]]

:func:`topk` selects along the last axis like :func:`jax.lax.top_k` and returns
``(values, indices)`` the same way (values in the input's dtype, ``int32`` indices), with the
order of docs/contract.md §1 (NaN above ``+inf``, ties to the lower index). The call is one
custom call target with two handlers, both going through the library's one request: on the
CPU backend the row-wise driver (``bisect``, every core), on CUDA the GPU kernel's launch
program on XLA's own stream over XLA's buffers (nothing copied). It works under
:func:`jax.jit` and :func:`jax.vmap` (a batched call selects from more rows). JAX is an
optional dependency: importing :mod:`rtopk` never imports it, this module does.

``recall=r`` asks for an approximate top-k with a recall target, as :func:`rtopk.topk` takes it
(docs/contract.md §6): every row holds at least ``ceil(r·k)`` of its exact top k, its indices
distinct and inside the row, its values the input's own; ``r = 1`` is exact.

Not differentiable (a custom call has no gradient rule); float32, float16 and bfloat16.
"""

from __future__ import annotations

import functools
from typing import Any, Optional, Tuple

import numpy as np

from . import _native
from ._request import ask, native

__all__ = ["TARGET", "topk"]

#: The name of the custom call target (one for both platforms).
TARGET = "rtopk_topk"

_DTYPES = ("float32", "float16", "bfloat16")


@functools.lru_cache(maxsize=None)
def _ffi() -> Any:
    """JAX's FFI module, with the target registered for the CPU and CUDA platforms (once per
    process). Older JAX releases keep the FFI in ``jax.extend.ffi``."""
    import importlib

    import jax

    # JAX before 0.4.38 keeps it in jax.extend.ffi
    ffi: Any = getattr(jax, "ffi", None) or importlib.import_module("jax.extend.ffi")
    for platform, xla_platform in (("cpu", "cpu"), ("cuda", "CUDA")):
        handler = ffi.pycapsule(_native.jax_handler(platform))
        ffi.register_ffi_target(TARGET, handler, platform=xla_platform)
    return ffi


def topk(
    x: Any, k: int, largest: bool = True, sorted: bool = False, *, recall: Optional[float] = None
) -> Tuple[Any, Any]:
    """The ``k`` largest (``largest=False``: smallest) entries of each row of ``x`` along its
    last axis: ``(values, indices)`` of shape ``x.shape[:-1] + (k,)``, values in ``x``'s dtype
    and ``int32`` indices, as :func:`jax.lax.top_k` returns them. ``sorted=True`` orders each
    row's entries by value (best first, as ``jax.lax.top_k`` always does); otherwise their
    order is unspecified. ``recall``: a recall target ``0 < recall <= 1`` (docs/contract.md
    §6; the module docstring). Traceable: works under :func:`jax.jit` and :func:`jax.vmap`.

    Raises:
        TypeError: ``x`` is not float32, float16 or bfloat16, ``k`` is not an integer or
            ``recall`` not a float.
        ValueError: ``x`` is 0-d, ``k`` is outside ``0 <= k <= x.shape[-1]``, or ``recall``
            outside ``0 < recall <= 1``.
    """
    import jax.numpy as jnp

    import jax

    ffi = _ffi()
    x = jnp.asarray(x)
    if str(x.dtype) not in _DTYPES:
        raise TypeError(
            f"rtopk.jax.topk selects from float32, float16 and bfloat16 arrays; got {x.dtype}"
        )
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be an integer, got {type(k).__name__}")
    if x.ndim == 0:
        raise ValueError("rtopk.jax.topk needs at least one axis (the rows are the last axis)")
    k = int(k)
    if not 0 <= k <= x.shape[-1]:
        raise ValueError(f"k = {k} is outside 0 <= k <= {x.shape[-1]} (the last axis)")
    attributes = {
        "k": np.int64(k),
        "largest": np.int64(bool(largest)),
        "sorted": np.int64(bool(sorted)),
    }
    if recall is not None:
        # checked before tracing, with rtopk.topk's messages (its request's own checks)
        a = ask(k, bool(largest), bool(sorted), "auto", None, 0.0, False, None, recall=recall)
        native(a, str(x.dtype), "cpu")
        attributes["recall"] = np.float64(a.recall)
    shape = (*x.shape[:-1], k)
    result: Any = jax.ShapeDtypeStruct
    results = (result(shape, x.dtype), result(shape, jnp.int32))
    # broadcast_all: under vmap the batch axes lead, and every leading axis is rows here
    call = ffi.ffi_call(TARGET, results, vmap_method="broadcast_all")
    values, indices = call(x, **attributes)
    return values, indices
