"""The library's registry (:func:`algorithms`) and Appendix A's E(n)
(:func:`expected_iterations`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import List, Tuple

from . import _native

__all__ = ["AlgorithmInfo", "algorithms", "expected_iterations"]


@dataclass(frozen=True)
class AlgorithmInfo:
    """One row of the registry: the ``name`` of docs/contract.md §4, the crate that implements
    it (``source``), a one-line ``summary``, and its capabilities: ``exact`` (the canonical
    top-k), ``iterations`` (reports iteration counts), ``bisection_params`` (takes
    ``max_iter`` / ``precision``), ``device`` (``"cpu"`` or ``"gpu"``), ``work_counters``,
    ``diagnostics`` (the simulator's findings), ``dtypes`` (the element types it takes:
    ``"float32"``, ``"float16"`` and ``"bfloat16"`` for every algorithm), ``ragged`` (takes
    lengths, a per-row k and hints, docs/contract.md §5)."""

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
    ragged: bool = False


def algorithms() -> List[AlgorithmInfo]:
    """Every algorithm :func:`rtopk.topk` takes by name (``algo=``), with its capabilities, in
    the order of docs/contract.md §4 (from the library's one registry)."""
    out = []
    for e in json.loads(_native.algorithms_json()):
        caps = {**e["caps"], "dtypes": tuple(e["caps"]["dtypes"])}
        out.append(AlgorithmInfo(name=e["name"], source=e["source"], summary=e["summary"], **caps))
    return out


def expected_iterations(m: int, k: int) -> float:
    """E(n) of RTop-K's Appendix A, eq. (4): the expected number of bisection iterations of
    Algorithm 1 on standard-normal rows of width ``m`` (``0 < k < m``)."""
    return float(_native.expected_iterations(m, k))
