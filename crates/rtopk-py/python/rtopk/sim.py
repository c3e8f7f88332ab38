"""``rtopk.sim``: the RTop-K kernel on the 32-lane warp simulator, over whole matrices.

The simulator runs the kernel of docs/kernel.md lane by lane — every launch family of the
CUDA kernel (four, two or one row per warp, a block per row), chosen by the same launch plan,
with its stages and names, bit-identical to ``bisect`` — and reports what compute-sanitizer
cannot see without a GPU: shuffles from inactive lanes, masks that do not match the lanes
executing, races, out-of-bounds and uninitialised accesses, undefined values reaching a
branch or the output. Its seeded bugs (mutants) show each check at work.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

import numpy as np

from . import _native
from ._host import as_rows
from ._request import ask, check_dim, native

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["Diagnostic", "MutantReport", "SimResult", "mutant_names", "mutants", "run"]


@dataclass(frozen=True)
class Diagnostic:
    """One finding of the simulator: its ``kind`` (e.g. ``"shuffle-source-inactive"``), the
    CUDA operation (``op``, e.g. ``"__shfl_xor_sync"``), the kernel's source ``label``, where
    (``block``, ``warp``, ``lanes`` as a bit mask, ``address``), whether it is ``benign``
    (same-value races), and the whole finding as one line (``message``)."""

    kind: str
    op: str
    label: str
    block: int
    warp: int
    lanes: int
    address: Optional[int]
    benign: bool
    message: str


@dataclass(frozen=True)
class SimResult:
    """The simulated launch's output — ``values``, ``indices`` (int64; index order, or value
    order with ``sorted``) with ``k`` along ``dim``, ``iterations`` (int32, docs/contract.md
    §3; ``None`` for split rows, whose chunks' counts are not the row's) — the
    ``kernel`` that ran (the launch plan's unit, e.g. ``"rtopk_half_rows_8"``), and its
    ``diagnostics`` (the first ones, each a :class:`Diagnostic`) out of ``diagnostics_total``,
    with the count of each kind (``kinds``: ``(kind, count)`` pairs)."""

    values: "npt.NDArray[np.float32]"
    indices: "npt.NDArray[np.int64]"
    iterations: "Optional[npt.NDArray[np.int32]]"
    kernel: str
    diagnostics: List[Diagnostic]
    diagnostics_total: int
    kinds: List[Tuple[str, int]]
    coverage: Optional[Dict[str, Dict[str, int]]] = None

    @property
    def clean(self) -> bool:
        """True when the simulator found nothing."""
        return self.diagnostics_total == 0


@dataclass(frozen=True)
class MutantReport:
    """One line of the seeded-bug catalog: the ``mutant`` (None: the kernel of
    docs/kernel.md), the launch ``families`` it lives in, how it was ``caught``
    (``"diagnostic"``, ``"oracle"``, ``"diagnostic+oracle"``, ``"launch error"`` or
    ``"not caught"``), the first diagnostic and the first disagreement with ``bisect``, the
    findings by kind (``kinds``), and whether the mutant is ``equivalent`` (cannot change any
    execution, so it must not be reported)."""

    mutant: Optional[str]
    equivalent: bool
    families: Optional[str]
    caught: str
    first_diagnostic: Optional[str]
    first_mismatch: Optional[str]
    diagnostics_total: int
    kinds: List[Tuple[str, int]]


def mutant_names() -> Tuple[str, ...]:
    """The seeded bugs' names, in catalog order (for :func:`run`'s ``mutant``)."""
    return tuple(_native.mutant_names())


def strategy_names() -> Tuple[str, ...]:
    """The launch strategies :func:`run` takes: ``auto`` (the CUDA launcher's plan for the
    shape), ``quarter``, ``half`` (four, two rows per warp), ``warp``, ``block``, ``split``
    (split rows) and ``radix`` (the radix select; neither reports iteration counts)."""
    return tuple(_native.strategy_names())


def run(
    x: Any,
    k: int,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = True,
    *,
    max_iter: Optional[int] = None,
    precision: float = 0.0,
    mutant: Optional[str] = None,
    strategy: str = "auto",
    schedule_seed: Optional[int] = None,
    coverage: bool = False,
) -> SimResult:
    """Runs the simulated kernel on the rows of ``x`` (float32, rows along ``dim``) as the GPU
    would: the launch family the CUDA launcher's plan picks for the shape (or the one
    ``strategy`` forces, :func:`strategy_names`), lanes and warps in order — or in a seeded
    shuffled order (``schedule_seed``), where a race changes the output — the sort launch
    with ``sorted`` (value order, the default, as :func:`rtopk.topk`; ``False``: index order),
    and with ``mutant``, one seeded bug (:func:`mutant_names`). ``k``, ``dim``, ``largest``,
    ``sorted``, ``max_iter`` and ``precision`` are checked as :func:`rtopk.topk` checks them.

    With ``coverage``, the result's ``coverage`` says what the run exercised: ``"steps"``,
    launches per step of the launch program (:func:`rtopk.plan`), and ``"branches"``, rows
    (or launches) per branch inside them (launch families, narrowing, how the search ended,
    split rows, sorts, 16-bit paths) — whether the inputs reached the code a change touched —
    and ``"cluster_barriers"``, the cluster barriers completed once per cluster (a cluster
    row's rounds).

    Cost: the simulator checks every lane's every access — roughly 10^4 to 10^5 rows of 256
    per second. The GIL is released while it runs.
    """
    dim = check_dim(dim)
    request = native(
        ask(k, largest, sorted, "sim", max_iter, precision, False, None), "float32", "cpu"
    )
    a = np.asarray(x)
    if a.dtype != np.float32:
        raise TypeError(_native.unsupported_dtype(str(a.dtype), sixteen_bit=False))
    rows, batch, d = as_rows(a, dim)
    r = _native.sim_run(
        rows, request, mutant=mutant, strategy=strategy, schedule_seed=schedule_seed
    )
    shape = (*batch, request.k)
    values = r["values"].reshape(shape)
    indices = r["indices"].reshape(shape)
    if d != a.ndim - 1:
        values = np.moveaxis(values, -1, d)
        indices = np.moveaxis(indices, -1, d)
    return SimResult(
        values=values,
        indices=indices,
        # split rows (strategy "split") have no iteration counts: the chunks' are not the row's
        iterations=(
            r["iterations"].reshape(batch) if r["iterations"].size == int(np.prod(batch)) else None
        ),
        kernel=r["kernel"],
        diagnostics=[Diagnostic(**g) for g in r["diagnostics"]],
        diagnostics_total=r["diagnostics_total"],
        kinds=[tuple(c) for c in r["kinds"]],
        coverage=r["coverage"] if coverage else None,
    )


def mutants() -> List[MutantReport]:
    """The seeded-bug catalog: the clean kernel, then every mutant, each run over a fixed
    suite of shapes (M below, at and above 32; both modes; exact and early stopping; several
    warps per block; rows that narrow) and compared with ``bisect``. Takes a few seconds."""
    return [
        MutantReport(**{**r, "kinds": [tuple(c) for c in r["kinds"]]})
        for r in _native.mutant_catalog()
    ]
