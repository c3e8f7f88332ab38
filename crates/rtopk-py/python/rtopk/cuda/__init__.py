"""``rtopk.cuda``: the GPU side without torch — whether it can run here, the kernels the
package ships (:func:`shipped_archs`), every kernel built once (``python -m rtopk.cuda
prepare``, as ``rtopk prepare``), and the kernel's equivalence check against ``bisect`` and
the warp simulator (``rtopk verify cuda``)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import List, Optional, Sequence

from .. import _native

__all__ = [
    "Prepared",
    "VerifyReport",
    "is_available",
    "prepare",
    "release_slabs",
    "shipped_archs",
    "verify",
]

# Kernel units compiled when the wheel was built (``rtopk prepare --arch ... --out``; the
# package README's "Building a wheel that ships its kernels"), in ``rtopk/_units`` beside this
# package: a first call on a GPU of these architectures loads its kernel from there instead of
# compiling it. Absent from a wheel built without them.
_UNITS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "_units")
if os.path.isdir(_UNITS):
    _native.cuda_add_units_dir(_UNITS)


def shipped_archs() -> List[str]:
    """The GPU architectures (``"sm_80"``, ``"sm_90"``, ...) whose kernels this installation
    ships compiled, so that no call compiles on them: a device of compute capability X.Y runs
    the units of ``sm_XZ`` for Z ≤ Y. Empty for a wheel built without them; every kernel is
    then compiled on its first use (NVRTC), or read from the cache :func:`prepare` fills."""
    if not os.path.isdir(_UNITS):
        return []
    return sorted(
        name
        for name in os.listdir(_UNITS)
        if name.startswith("sm_")
        and any(f.endswith(".cubin") for f in os.listdir(os.path.join(_UNITS, name)))
    )


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


@dataclass(frozen=True)
class Prepared:
    """What :func:`prepare` did: ``units`` kernel units ready on ``device``, ``compiled`` of
    them by NVRTC now, ``shipped`` read from the units the package ships (the rest from the
    disk cache), in ``seconds``."""

    device: str
    units: int
    compiled: int
    shipped: int
    seconds: float


def is_available() -> bool:
    """True when the CUDA driver loads and the kernels can be had: the NVRTC library loads, or
    the package ships compiled kernels (:func:`shipped_archs`). A GPU may still be absent."""
    return bool(_native.cuda_libraries_present())


def verify(
    quick: bool = True, device: int = 0, dtypes: Optional[Sequence[str]] = None
) -> VerifyReport:
    """Runs the GPU kernel of device ``device`` against ``bisect`` and the warp simulator over
    every launch shape, input family, k, search (exact, early stopping, recall) and mode, in
    each element type of ``dtypes`` (names: ``"float32"``, ``"float16"``, ``"bfloat16"``,
    ``"int8"``, ``"uint8"``, ``"int16"``, ``"int32"``, ``"float64"``, ``"int64"``; ``None``: all
    nine), and returns the comparison. ``quick``: 2^16 elements per case (about a minute per
    three types on 16 cores), else 2^21.

    Raises:
        TypeError: a name in ``dtypes`` the kernel does not take.
        rtopk.CudaUnavailableError: no CUDA driver or NVRTC library.
        rtopk.CudaError: the device could not be opened or a launch failed.
    """
    names = [] if dtypes is None else [str(d) for d in dtypes]
    d = _native.cuda_verify(quick=quick, device=device, dtypes=names)
    return VerifyReport(
        device=d["device"],
        cases=d["cases"],
        rows=d["rows"],
        widths=list(d["widths"]),
        mismatches=list(d["mismatches"]),
    )


def prepare(device: int = 0) -> Prepared:
    """Builds and loads every GPU kernel unit for ``device`` — NVRTC on every core, each unit
    stored in the on-disk cache (``$RTOPK_CUDA_PTX_CACHE``, else ``~/.cache/rtopk-cuda``) — so
    that no later call of any shape, dtype or option compiles, in this process or any later
    one. Run once after installing (``python -m rtopk.cuda prepare``); tens of seconds the
    first time, well under a second once cached. Not needed on a GPU whose kernels the wheel
    ships (:func:`shipped_archs`): those units are loaded from the package, not compiled.

    Raises:
        rtopk.CudaUnavailableError: no CUDA driver or NVRTC library.
        rtopk.CudaError: the device could not be opened or a unit failed to build.
    """
    d = _native.cuda_prepare_all(device=device)
    return Prepared(
        device=d["device"],
        units=d["units"],
        compiled=d["compiled"],
        shipped=d["shipped"],
        seconds=d["ms"] / 1e3,
    )


def release_slabs() -> None:
    """Frees the memory :func:`rtopk.topk` keeps for the outputs of its next small eager CUDA
    calls. Calls on small rows take their outputs from slabs of torch's caching allocator,
    one per output shape, dtype, device and stream, each a few calls' outputs of at most 512
    elements (at most 128 KiB a slab: 64 KiB of indices and at most as much of values; at most
    64 slabs); a slab returns to the allocator once every output cut from it is gone, so after
    this call the memory goes as the given-out outputs do.
    Nothing to do when torch was never used."""
    import sys

    eager = sys.modules.get("rtopk._eager")
    if eager is not None:
        eager.release_slabs()


def _main(argv: List[str]) -> int:
    """``python -m rtopk.cuda prepare [--device N]`` (``__main__.py``): the exit status of
    ``rtopk prepare`` — 0 when every unit is ready, 1 when the environment fails (no driver,
    no NVRTC, a device that cannot be opened or a unit that does not build), with the reason
    on stderr as ``error: ...``; 2 for bad arguments (argparse's)."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python -m rtopk.cuda")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="build every GPU kernel once (into the disk cache)")
    p.add_argument("--device", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        done = prepare(args.device)
    except _native.CudaError as e:  # CudaUnavailableError among them
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(
        f"{done.device}: {done.units} kernel units ready ({done.compiled} compiled now, "
        f"{done.shipped} shipped, {done.units - done.compiled - done.shipped} from the cache) "
        f"in {done.seconds:.1f} s"
    )
    return 0
