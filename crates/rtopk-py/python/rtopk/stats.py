"""``rtopk.stats``: iteration statistics of RTop-K's bisection over many rows.

The numbers are the library's (``rtopk::stats``), the same as ``rtopk stats iterations
--json`` prints for the same arguments: the counts are ``bisect``'s counts
(docs/contract.md §3), measured on every core.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Optional

import numpy as np

from . import _native
from ._request import ask, native

__all__ = ["iterations"]


def iterations(
    m: Optional[int],
    k: int,
    reps: Optional[int] = None,
    dist: str = "normal",
    seed: int = 0,
    precision: float = 0.0,
    max_iter: Optional[int] = None,
    *,
    epsilon: str = "relative",
    rows: Any = None,
) -> Dict[str, Any]:
    """The ``stats iterations`` object of docs/contract.md §4 as a dict: ``m``, ``k``,
    ``reps``, ``dist``, ``mean``, ``max``, ``cumulative_percent`` (``[i]``: % of rows that
    exited at iteration ``<= i + 1``), ``expected_en`` (Appendix A's E(n), for normal rows),
    and ``min``, ``stddev``, ``histogram``, ``exit_by_hit_percent``, ``seed``, ``input``,
    ``precision``, ``epsilon_mode``, ``max_iter``.

    Rows are ``reps`` (default 10,000) rows of width ``m`` drawn from the input family
    ``dist`` (normal, uniform, laplace, relu, ties, ...; row ``r`` from its own stream under
    ``seed``, so results do not depend on the thread count), or the rows of the 2-D float32
    array ``rows`` (the first ``reps``; all by default; ``m`` may then be None).

    Cost: ``reps × m`` elements, each row searched once, on every core, the GIL released.
    """
    matrix = None
    if rows is not None:
        matrix = np.ascontiguousarray(rows)
        if matrix.dtype != np.float32:
            raise TypeError(_native.unsupported_dtype(str(matrix.dtype)))
        if matrix.ndim != 2:
            raise ValueError(f"rows must be a 2-D array, got {matrix.ndim}-D")
    request = native(
        ask(k, True, False, "bisect", max_iter, precision, True, None), "float32", "cpu"
    )
    text = _native.stats_iterations(
        request, m=m, reps=reps, dist=dist, seed=seed, rows=matrix, epsilon=epsilon
    )
    report: Dict[str, Any] = json.loads(text)
    return report
