"""rtopk — row-wise top-k selection (RTop-K) for NumPy arrays and PyTorch tensors.

>>> import numpy as np, rtopk
>>> x = np.array([[0.5, 3.0, np.nan, 3.0], [1.0, -0.0, 0.0, -2.0]], dtype=np.float32)
>>> rtopk.topk(x, 2).indices
array([[2, 1],
       [0, 1]])

* :func:`topk` — called like ``torch.topk``, with its defaults (``sorted=True``: value
  order): NumPy arrays and CPU tensors on every core (every CPU algorithm of
  :func:`algorithms` by name; every dtype of :func:`topk`), CUDA tensors on the GPU
  kernel (float32, float16, bfloat16, float64, int8, uint8, int16, int32 and int64, each in
  its own dtype);
  a custom op (``torch.ops.rtopk.topk``)
  with autograd under ``torch.compile`` (:mod:`rtopk.ops`).
* rows of their own length, a k per row, threshold hints and the threshold output
  (docs/contract.md §5): ``rtopk.topk(x, k, lengths=..., hint=..., return_threshold=True)``
  on NumPy arrays and CPU tensors.
* :func:`grouped_topk` (:mod:`rtopk.grouped`) — grouped selection (docs/contract.md §8), the
  router of mixture-of-experts models (DeepSeek-V3's: the best groups of experts, then the best
  experts among them), on NumPy arrays, CPU tensors and CUDA tensors (one kernel launch).
* :func:`trace` — one row through the kernel on the warp simulator, as data, text and SVG.
* :mod:`rtopk.sim` — the simulated kernel over matrices, its diagnostics, seeded bugs.
* :mod:`rtopk.stats`, :func:`expected_iterations` — iteration statistics, Appendix A's E(n).
* :func:`plan` — the launch program the GPU runs for a shape (``rtopk plan --json``).
* :mod:`rtopk.cuda` — the GPU kernel's equivalence check.
* :mod:`rtopk.distributed` — top-k across processes through ``torch.distributed``: rows
  sharded across ranks, or each row split across ranks (identical to one device's answer).

Every call returns the canonical top-k of docs/contract.md §1: NaN above ``+inf``,
``-0.0 == +0.0``, ties to the lower index.
"""

from . import cuda, distributed, grouped, sim, stats
from ._native import CudaError, CudaUnavailableError, InternalError, __version__
from ._plan import plan
from ._registry import AlgorithmInfo, algorithms, expected_iterations
from ._topk import (
    TopK,
    TopKIterations,
    TopKIterationsThreshold,
    TopKThreshold,
    auto_algorithm,
    topk,
)
from ._trace import Trace, TraceChunk, TraceStep, trace
from .grouped import grouped_topk

__all__ = [
    "AlgorithmInfo",
    "CudaError",
    "CudaUnavailableError",
    "InternalError",
    "TopK",
    "TopKIterations",
    "TopKIterationsThreshold",
    "TopKThreshold",
    "Trace",
    "TraceChunk",
    "TraceStep",
    "__version__",
    "algorithms",
    "auto_algorithm",
    "cuda",
    "distributed",
    "expected_iterations",
    "grouped",
    "grouped_topk",
    "plan",
    "sim",
    "stats",
    "topk",
    "trace",
]


def _register_the_op_if_torch_is_loaded() -> None:
    """With torch in use, registers the custom op now (so torch.compile finds it); otherwise
    rtopk.topk registers it on the first tensor it sees. (A function, so that ``sys`` stays
    out of the package's namespace.)"""
    import sys

    if "torch" in sys.modules:
        from . import ops  # noqa: F401


_register_the_op_if_torch_is_loaded()
del _register_the_op_if_torch_is_loaded
