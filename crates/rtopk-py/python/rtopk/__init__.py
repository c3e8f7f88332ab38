"""rtopk — row-wise top-k selection (RTop-K) for NumPy arrays and PyTorch tensors.

>>> import numpy as np, rtopk
>>> x = np.array([[0.5, 3.0, np.nan, 3.0], [1.0, -0.0, 0.0, -2.0]], dtype=np.float32)
>>> rtopk.topk(x, 2).indices
array([[1, 2],
       [0, 1]])

* :func:`topk` — like ``torch.topk``: NumPy arrays and CPU tensors on every core (every CPU
  algorithm of :func:`algorithms` by name; float32, float16 and bfloat16), CUDA tensors on
  the GPU kernel (the same three types, each in its own dtype); a custom op
  (``torch.ops.rtopk.topk``) with autograd under ``torch.compile`` (:mod:`rtopk.ops`).
* :func:`trace` — one row through the kernel on the warp simulator, as data, text and SVG.
* :mod:`rtopk.sim` — the simulated kernel over matrices, its diagnostics, seeded bugs.
* :mod:`rtopk.stats`, :func:`expected_iterations` — iteration statistics, Appendix A's E(n).
* :mod:`rtopk.cuda` — the GPU kernel's equivalence check.
* :mod:`rtopk.distributed` — top-k across processes through ``torch.distributed``: rows
  sharded across ranks, or each row split across ranks (identical to one device's answer).

Every call returns SPEC §1's canonical top-k: NaN above ``+inf``, ``-0.0 == +0.0``, ties to
the lower index.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import List, Tuple

from . import _native, cuda, distributed, sim, stats
from ._native import CudaError, CudaUnavailableError, InternalError, __version__
from ._topk import TopK, TopKIterations, auto_algorithm, topk
from ._trace import Trace, TraceChunk, TraceStep, trace

__all__ = [
    "AlgorithmInfo",
    "CudaError",
    "CudaUnavailableError",
    "InternalError",
    "TopK",
    "TopKIterations",
    "Trace",
    "TraceChunk",
    "TraceStep",
    "__version__",
    "algorithms",
    "auto_algorithm",
    "cuda",
    "distributed",
    "expected_iterations",
    "sim",
    "stats",
    "topk",
    "trace",
]


@dataclass(frozen=True)
class AlgorithmInfo:
    """One row of the registry: the SPEC §4 ``name``, the crate that implements it
    (``source``), a one-line ``summary``, and its capabilities: ``exact`` (the canonical
    top-k), ``iterations`` (reports iteration counts), ``bisection_params`` (takes
    ``max_iter`` / ``precision``), ``device`` (``"cpu"`` or ``"gpu"``), ``work_counters``,
    ``diagnostics`` (the simulator's findings), ``dtypes`` (the element types it takes:
    ``"float32"``, ``"float16"`` and ``"bfloat16"`` for every algorithm)."""

    name: str
    source: str
    summary: str
    exact: bool
    iterations: bool
    bisection_params: bool
    device: str
    work_counters: bool
    diagnostics: bool
    dtypes: Tuple[str, ...]


def algorithms() -> List[AlgorithmInfo]:
    """Every algorithm :func:`topk` takes by name (``algo=``), with its capabilities, in SPEC
    §4 order (from the library's one registry)."""
    out = []
    for e in json.loads(_native.algorithms_json()):
        caps = {**e["caps"], "dtypes": tuple(e["caps"]["dtypes"])}
        out.append(AlgorithmInfo(name=e["name"], source=e["source"], summary=e["summary"], **caps))
    return out


def expected_iterations(m: int, k: int) -> float:
    """E(n) of RTop-K's Appendix A, eq. (4): the expected number of bisection iterations of
    Algorithm 1 on standard-normal rows of width ``m`` (``0 < k < m``). Microseconds."""
    return float(_native.expected_iterations(m, k))


# With torch in use, register the custom op now (so torch.compile finds it); otherwise
# rtopk.topk registers it on the first tensor it sees.
if "torch" in sys.modules:
    from torch import Tensor as _Tensor

    from ._topk import remember_torch
    from .ops import topk_tensor as _topk_tensor

    remember_torch(_Tensor, _topk_tensor)
