"""``rtopk.cuda``: the GPU side without torch — whether it can run here, and the kernel's
equivalence check against ``bisect`` and the warp simulator (``rtopk verify cuda``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List

from . import _native

__all__ = ["VerifyReport", "is_available", "verify"]


@dataclass(frozen=True)
class VerifyReport:
    """What :func:`verify` compared: ``cases`` (shape × input family × k × search × mode)
    over ``rows`` rows of the row ``widths``, on ``device``; ``mismatches`` describes every
    case whose values, indices or iteration counts differ (empty: all identical)."""

    device: str
    cases: int
    rows: int
    widths: List[int]
    mismatches: List[str]

    @property
    def ok(self) -> bool:
        """True when every case was identical."""
        return not self.mismatches


def is_available() -> bool:
    """True when the CUDA driver and NVRTC libraries load (a GPU may still be absent)."""
    return bool(_native.cuda_libraries_present())


def verify(quick: bool = True, device: int = 0) -> VerifyReport:
    """Runs the GPU kernel of device ``device`` against ``bisect`` and the warp simulator over
    every launch shape, input family, k, search (exact, early stopping) and mode, and returns
    the comparison. ``quick``: 2^16 elements per case (about a minute), else 2^21.

    Raises:
        rtopk.CudaUnavailableError: no CUDA driver or NVRTC library.
        rtopk.CudaError: the device could not be opened or a launch failed.
    """
    d = _native.cuda_verify(quick=quick, device=device)
    return VerifyReport(
        device=d["device"],
        cases=d["cases"],
        rows=d["rows"],
        widths=list(d["widths"]),
        mismatches=list(d["mismatches"]),
    )
