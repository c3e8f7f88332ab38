"""``rtopk.trace``: one row's journey through the RTop-K kernel on the warp simulator."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, List, Optional, Tuple

import numpy as np

from . import _native
from ._request import ask, native

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["Trace", "TraceChunk", "TraceStep", "trace"]


@dataclass(frozen=True)
class TraceStep:
    """One threshold test of the search (``search_threshold`` in docs/kernel.md).

    ``lo``/``hi`` are the bracket before the test (as ordered values; ``lo_key``/``hi_key`` as
    the order's integer keys), ``threshold`` the float threshold of a value-phase test (None in
    the key phase), ``t`` its key, ``count`` how many elements are ``>= t``, and ``moved`` what
    the test did: ``"hi"`` (count < k), ``"lo"`` (count > k) or ``"hit"`` (count == k).
    """

    iteration: int
    phase: str
    lo_key: int
    hi_key: int
    lo: float
    hi: float
    threshold: Optional[float]
    t: int
    count: int
    moved: str


@dataclass(frozen=True)
class TraceChunk:
    """One chunk of 32 elements in the selection stage (bit ``l`` = element ``base + l``)."""

    base: int
    valid: int
    strong_mask: int
    band_mask: int
    sel_mask: int
    band_left_before: int
    written_before: int


@dataclass(frozen=True, repr=False)
class Trace:
    """A row traced through the simulated kernel: the data of every stage (load, search,
    select), ``text()`` and ``svg()``. In Jupyter the trace draws itself (``_repr_svg_``).

    ``kernel`` is the launch family the CUDA launcher's plan picks for one row of this width
    (e.g. ``"rtopk_half_rows_2"``: 16 lanes per row, ``keys_per_lane`` keys each).
    Attributes hold lane 0's view of the row-uniform registers: ``values`` (the row),
    ``keys`` (``s_keys`` after the load), ``min_key``/``max_key`` (the first bracket),
    ``steps`` (the tests), ``narrowed`` (``(after_iteration, candidates)`` when the row was
    narrowed to its candidates), ``exit`` (``"hit"``, ``"converged"``, ``"precision"`` or
    ``"max_iter"``), ``iterations`` (docs/contract.md §3), the selection's cut (``strong_above``,
    ``band_lo``, ``strong_count``) and ``chunks``, and the output (``indices``, ``selected``).
    ``diagnostics`` lists the simulator's findings (none for the kernel of docs/kernel.md).
    """

    row: int
    kernel: str
    lanes_per_row: int
    keys_per_lane: int
    m: int
    k: int
    largest: bool
    max_iter: Optional[int]
    precision: float
    values: "npt.NDArray[np.float32]"
    keys: "npt.NDArray[np.uint32]"
    min_key: int
    max_key: int
    steps: List[TraceStep]
    narrowed: Optional[Tuple[int, int]]
    exit: Optional[str]
    iterations: int
    strong_above: int
    band_lo: int
    strong_count: int
    chunks: List[TraceChunk]
    indices: "npt.NDArray[np.uint32]"
    selected: "npt.NDArray[np.float32]"
    diagnostics: List[str]
    diagnostics_total: int
    _native: Any = field(repr=False, compare=False)

    def __repr__(self) -> str:
        mode = "largest" if self.largest else "smallest"
        return (
            f"Trace({self.kernel}, m={self.m}, k={self.k}, {mode}, max_iter={self.max_iter}, "
            f"precision={self.precision}, iterations={self.iterations}, exit={self.exit!r}, "
            f"indices={self.indices.tolist()}, diagnostics={self.diagnostics_total})"
        )

    def text(self) -> str:
        """The trace as text (what ``rtopk trace`` prints)."""
        return str(self._native.text())

    def svg(self) -> str:
        """The trace as an SVG picture: the bisection (top) and the selection's chunks."""
        return str(self._native.svg())

    def _repr_svg_(self) -> str:
        return self.svg()


def trace(
    row: Any,
    k: int,
    *,
    largest: bool = True,
    max_iter: Optional[int] = None,
    precision: float = 0.0,
) -> Trace:
    """Follows one row (1-D float32, ``1 <= k <= len(row)``) through the RTop-K kernel on the
    warp simulator — the kernel of docs/kernel.md with the CUDA kernel's stage names, in the
    launch family the CUDA launcher picks for that width — recording every stage.

    Cost: one simulated row (microseconds per element); the SVG is drawn only when asked for.
    """
    a = np.asarray(row)
    if a.ndim != 1:
        raise ValueError(f"rtopk.trace follows one row: expected a 1-D array, got {a.ndim}-D")
    if a.dtype != np.float32:
        raise TypeError(_native.unsupported_dtype(str(a.dtype), sixteen_bit=False))
    request = native(
        ask(k, largest, True, "sim", max_iter, precision, False, None), "float32", "cpu"
    )
    traced = _native.trace(a, request)
    d = traced.data()
    return Trace(
        row=d["row"],
        kernel=d["kernel"],
        lanes_per_row=d["lanes_per_row"],
        keys_per_lane=d["keys_per_lane"],
        m=d["m"],
        k=d["k"],
        largest=d["largest"],
        max_iter=d["max_iter"],
        precision=d["precision"],
        values=d["values"],
        keys=d["keys"],
        min_key=d["min_key"],
        max_key=d["max_key"],
        steps=[TraceStep(**s) for s in d["steps"]],
        narrowed=d["narrowed"],
        exit=d["exit"],
        iterations=d["iterations"],
        strong_above=d["strong_above"],
        band_lo=d["band_lo"],
        strong_count=d["strong_count"],
        chunks=[TraceChunk(**c) for c in d["chunks"]],
        indices=d["indices"],
        selected=d["selected"],
        diagnostics=d["diagnostics"],
        diagnostics_total=d["diagnostics_total"],
        _native=traced,
    )
