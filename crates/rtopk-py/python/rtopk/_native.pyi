"""Type stubs of the extension module ``rtopk._native`` (crates/rtopk-py/src/*.rs).

The Python package (``rtopk``) is the interface; these are its building blocks.
"""

from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import numpy.typing as npt

__version__: str

class CudaError(RuntimeError):
    """The GPU path failed: NVRTC compilation, a driver call or a launch."""

class CudaUnavailableError(CudaError):
    """No CUDA driver (or NVRTC, or no CUDA launch in this build): the GPU path cannot run."""

class InternalError(RuntimeError):
    """A bug in rtopk (a Rust panic caught at the boundary); the interpreter is unharmed."""

def select(
    x: npt.NDArray[Any],
    k: int,
    algo: str,
    largest: bool,
    sorted: bool,
    max_iter: Optional[int],
    precision: float,
    iterations: bool,
    index_bits: int,
    dtype: str = "float32",
) -> Tuple[npt.NDArray[Any], npt.NDArray[Any], Optional[npt.NDArray[np.int32]]]:
    """Row-wise top-k of the 2-D array ``x`` (rows along the last axis, any strides) with the
    registry's ``algo`` (``"auto"``: ``bisect``); the GIL is released while it runs. ``dtype``
    names the element type: ``"float32"`` (``x`` float32), ``"float16"`` or ``"bfloat16"``
    (``x`` a uint16 array of the bit patterns, read in place). Returns ``(N, k)`` values
    (float32, or uint16 bit patterns of the 16-bit type), ``(N, k)`` indices (int64 or int32
    by ``index_bits``) and, with ``iterations``, ``(N,)`` int32 counts. ``TypeError`` for an
    algorithm that does not take ``dtype``."""

def check_request(
    algo: str,
    device: str,
    m: int,
    k: int,
    max_iter: Optional[int],
    precision: float,
    iterations: bool,
    index_bits: int,
    dtype: str = "float32",
) -> str:
    """Checks a request on ``device`` (``"cpu"``/``"cuda"``) for rows of width ``m`` of
    ``dtype`` without running it; returns the algorithm's registry name (``auto`` resolved)."""

def auto_algorithm(device: str) -> str:
    """What ``algo="auto"`` stands for on ``device``: ``"bisect"`` (cpu), ``"cuda"`` (cuda)."""

def algorithms_json() -> str:
    """The registry (name, source, summary, caps of every SPEC §4 algorithm) as JSON."""

def unsupported_dtype(name: str, sixteen_bit: bool = True) -> str:
    """The ``TypeError`` message for an input of dtype ``name``: what ``rtopk.topk`` takes
    (float32, float16, bfloat16), or with ``sixteen_bit=False`` what the simulator takes."""

class NativeTrace:
    """A traced row (warp-sim's ``RowTrace``); ``rtopk.Trace`` wraps it."""

    def text(self) -> str: ...
    def svg(self) -> str: ...
    def data(self) -> Dict[str, Any]: ...

def trace(
    row: npt.NDArray[np.float32],
    k: int,
    largest: bool,
    max_iter: Optional[int],
    precision: float,
) -> NativeTrace:
    """One row through the simulated kernel (one warp), every stage recorded."""

def sim_run(
    x: npt.NDArray[np.float32],
    k: int,
    largest: bool,
    sorted: bool,
    max_iter: Optional[int],
    precision: float,
    mutant_name: Optional[str],
    strategy_name: str,
    schedule_seed: Optional[int],
) -> Dict[str, Any]:
    """The simulated kernel over the ``(N, M)`` matrix ``x``: values, indices (int64),
    iterations (int32), kernel (the plan's unit), diagnostics (dicts), diagnostics_total and
    kinds (``(kind, count)`` pairs)."""

def strategy_names() -> List[str]:
    """The launch strategies, ``auto`` first."""

def mutant_names() -> List[str]:
    """The seeded bugs' names, in catalog order."""

def mutant_catalog() -> List[Dict[str, Any]]:
    """The seeded-bug catalog, one dict per kernel variant (the clean kernel first)."""

def stats_iterations(
    k: int,
    m: Optional[int],
    reps: Optional[int],
    dist: str,
    seed: int,
    rows: Optional[npt.NDArray[np.float32]],
    precision: float,
    max_iter: Optional[int],
    epsilon: str,
) -> str:
    """SPEC §4's ``stats iterations`` object as JSON (``rtopk::stats::iterations``)."""

def expected_iterations(m: int, k: int) -> float:
    """E(n) of Appendix A, eq. (4)."""

def cuda_libraries_present() -> bool:
    """True when the CUDA driver and NVRTC libraries load."""

def cuda_verify(quick: bool, device: int) -> Dict[str, Any]:
    """rtopk-cuda's equivalence check on ``device``: device, cases, rows, widths, mismatches."""

def cuda_topk(
    x_ptr: int,
    n: int,
    m: int,
    k: int,
    largest: bool,
    sorted: bool,
    max_iter: int,
    precision: float,
    values_ptr: int,
    indices_ptr: int,
    index_bits: int,
    iterations_ptr: int,
    stream: int,
    device: int,
    dtype: str = "float32",
) -> None:
    """Launches the RTop-K kernel on device ``device`` on the CUDA stream ``stream`` (a raw
    ``cudaStream_t``, torch's current stream of that device) over ``n`` contiguous rows of
    ``dtype`` (``"float32"``, ``"float16"`` or ``"bfloat16"``) of width ``m`` at device
    address ``x_ptr``, writing ``n × k`` values of ``dtype`` at ``values_ptr``,
    ``n × k`` indices of ``index_bits`` (32 or 64) bits at ``indices_ptr``, and, unless
    ``iterations_ptr`` is 0, ``n`` int32 iteration counts there. ``max_iter`` -1 is exact
    search; ``precision`` 0 is exact. Asynchronous: no host synchronisation, no device
    allocation (capturable by CUDA graphs). Raises ``CudaUnavailableError`` without a driver.

    Present only in builds with the CUDA launch; ``rtopk.ops`` checks for it.
    """

def _panic_for_tests(detach: bool) -> None:
    """Panics inside the boundary's guard (tests: the panic becomes ``InternalError``)."""
