"""Type stubs of the extension module ``rtopk._native`` (crates/rtopk-py/src/*.rs).

The Python package (``rtopk``) is the interface; these are its building blocks. Every entry
that selects takes one :class:`Request` (built by ``rtopk._request.native``).
"""

from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

class CudaError(RuntimeError):
    """The GPU path failed: NVRTC compilation, a driver call or a launch."""

class CudaUnavailableError(CudaError):
    """No CUDA driver (or NVRTC, or no CUDA launch in this build): the GPU path cannot run."""

class InternalError(RuntimeError):
    """A bug in rtopk (a Rust panic caught at the boundary); the interpreter is unharmed."""

class Request:
    """What a call asks for, checked once (immutable; one request may serve many calls).

    Wraps the library's one request (``rtopk::Request``), built and checked there once.
    Built from keywords only. Refused when built: ``k`` a bool or a non-integer
    (``TypeError``) or ``< 0`` (``ValueError``); a per-row ``k`` or ``lengths`` that is not a
    1-D int64 array (``TypeError``) or holds a value ``< 0`` (``ValueError``); an unknown
    ``algo``, a CPU algorithm for device ``"cuda"``, ``max_iter`` / ``precision`` for an
    algorithm outside the bisection family or both together, a precision out of range, a
    ``recall`` outside ``(0, 1]``, for another algorithm or with ``max_iter`` / ``precision``
    (``ValueError``; a bool or a non-number: ``TypeError``),
    ``iterations`` from an algorithm that does not report them (``ValueError``); a ``dtype``
    other than float32, float16, bfloat16 or an ``index_dtype`` other than int32, int64
    (``TypeError``). :meth:`check` adds the rows (docs/contract.md §1, §5).
    """

    def __init__(
        self,
        *,
        k: Union[int, npt.NDArray[np.int64]],
        algo: str = "auto",
        largest: bool = True,
        sorted: bool = True,
        iterations: bool = False,
        threshold: bool = False,
        max_iter: Optional[int] = None,
        precision: float = 0.0,
        index_dtype: str = "int64",
        dtype: str = "float32",
        device: str = "cpu",
        lengths: Optional[npt.NDArray[np.int64]] = None,
        hint: Optional[npt.NDArray[np.float32]] = None,
        recall: Optional[float] = None,
    ) -> None: ...
    def check(self, m: int, n: Optional[int] = None) -> int:
        """``ValueError`` unless ``n`` rows of width ``m`` can be selected (``1 <= m``, every
        k ``<= m``, int32 indices only for ``m <= 2^31``, one per-row entry per row, lengths
        ``<= m``, per-row inputs only for algorithms that take them); ``n`` defaults to the
        per-row inputs' length. Returns the output width."""

    @property
    def algorithm(self) -> str:
        """The registry name (``auto`` resolved for the device): the algorithm whose parameters
        and outputs the call takes (:func:`auto_algorithm`)."""

    @property
    def k(self) -> int:
        """The output width: the one k, or the largest per-row k."""

    @property
    def ragged(self) -> bool:
        """True with lengths, a per-row k or a hint (docs/contract.md §5)."""
    @property
    def largest(self) -> bool: ...
    @property
    def sorted(self) -> bool: ...
    @property
    def iterations(self) -> bool: ...
    @property
    def threshold(self) -> bool: ...
    @property
    def max_iter(self) -> Optional[int]: ...
    @property
    def precision(self) -> float: ...
    @property
    def recall(self) -> Optional[float]:
        """The recall target (docs/contract.md §6), or None."""
    @property
    def index_dtype(self) -> str: ...
    @property
    def dtype(self) -> str: ...
    @property
    def device(self) -> str:
        """``"cpu"`` or ``"cuda:N"`` (``device="cuda"`` is ``cuda:0``)."""

def select(
    x: npt.NDArray[Any], request: Request
) -> Tuple[
    npt.NDArray[Any],
    npt.NDArray[Any],
    Optional[npt.NDArray[np.int32]],
    Optional[npt.NDArray[np.float32]],
]:
    """Row-wise top-k of the 2-D array ``x`` (rows along the last axis, any strides) as the
    host ``request`` asks, through the library's ``select``; the GIL is released while it
    runs. ``x`` is float32 for a float32 request, a uint16 array of the bit patterns (read in
    place) for a float16 or bfloat16 one. Returns ``(N, K)`` values (float32, or uint16 bit
    patterns of the 16-bit type; padding 0), ``(N, K)`` indices (the request's index type;
    padding -1), with ``iterations`` ``(N,)`` int32 counts, with ``threshold`` ``(N,)``
    float32 thresholds (docs/contract.md §5)."""

def plan_json(request: Request, n: int, m: int, gpu: Optional[str] = None) -> str:
    """The launch program of ``request`` on ``n`` rows of width ``m``, as JSON."""

def auto_algorithm(device: str) -> str:
    """What ``algo="auto"`` stands for on ``device``: ``"bisect"`` (cpu; rows at least 256 times
    longer than their k run on ``heap``, short rows at k = 1 on ``bucket``, same answer),
    ``"cuda"`` (cuda)."""

def algorithms_json() -> str:
    """The registry (name, source, summary, caps of every algorithm) as JSON."""

def unsupported_dtype(name: str, sixteen_bit: bool = True) -> str:
    """The ``TypeError`` message for an input of dtype ``name``: what ``rtopk.topk`` takes
    (float32, float16, bfloat16), or with ``sixteen_bit=False`` what the simulator's own views
    (``rtopk.sim.run``, ``rtopk.trace``) take."""

class NativeTrace:
    """A traced row (the simulator's row trace); ``rtopk.Trace`` wraps it."""

    def text(self) -> str: ...
    def svg(self) -> str: ...
    def data(self) -> Dict[str, Any]: ...

def trace(row: npt.NDArray[np.float32], request: Request) -> NativeTrace:
    """One row through the simulated kernel as ``request`` asks (k, mode, bisection), every
    stage recorded."""

def sim_run(
    x: npt.NDArray[np.float32],
    request: Request,
    *,
    mutant: Optional[str] = None,
    strategy: str = "auto",
    schedule_seed: Optional[int] = None,
) -> Dict[str, Any]:
    """The simulated kernel over the ``(N, M)`` matrix ``x`` as ``request`` asks: values,
    indices (int64), iterations (int32), kernel (the plan's unit), diagnostics (dicts),
    diagnostics_total, kinds (``(kind, count)`` pairs) and coverage (``steps`` and
    ``branches``: counts by name)."""

def strategy_names() -> List[str]:
    """The launch strategies, ``auto`` first."""

def mutant_names() -> List[str]:
    """The seeded bugs' names, in catalog order."""

def mutant_catalog() -> List[Dict[str, Any]]:
    """The seeded-bug catalog, one dict per kernel variant (the clean kernel first)."""

def stats_iterations(
    request: Request,
    *,
    m: Optional[int] = None,
    reps: Optional[int] = None,
    dist: str = "normal",
    seed: int = 0,
    rows: Optional[npt.NDArray[np.float32]] = None,
    epsilon: str = "relative",
) -> str:
    """The ``stats iterations`` object (docs/contract.md §4) as JSON for the request's ``k``
    and bisection parameters (``rtopk::stats::iterations``)."""

def expected_iterations(m: int, k: int) -> float:
    """E(n) of Appendix A, eq. (4)."""

def cuda_libraries_present() -> bool:
    """True when the CUDA driver loads and NVRTC does or kernel units are shipped."""

def cuda_add_units_dir(dir: str) -> None:
    """Makes the kernel units shipped in ``dir`` available to every later kernel load."""

def cuda_verify(*, quick: bool, device: int, dtypes: List[str]) -> Dict[str, Any]:
    """The GPU kernel's equivalence check on ``device`` in ``dtypes`` (names of float32,
    float16, bfloat16, int8, uint8, int16, int32, float64 and int64; every one where empty):
    device, cases, rows, widths, mismatches. ``TypeError`` for another name."""

def cuda_prepare_all(*, device: int) -> Dict[str, Any]:
    """Builds every kernel unit for ``device``: device, units, compiled, shipped, ms."""

def cuda_per_row_words(
    device: int, pointers: Tuple[int, int], n: int, bound: int, stream: int
) -> None:
    """Writes the ``n`` int64 entries at device address ``pointers[0]`` as ``n`` uint32
    words at ``pointers[1]``, each clamped to ``[0, bound]``: one launch on CUDA device
    ``device``, queued on ``stream``. ``ValueError`` for a null address or a bound of 2^32 or
    more."""

def cuda_launch(
    request: Request,
    n: int,
    m: int,
    pointers: Tuple[int, int, int, int, int, int, int, int],
    stream: int,
) -> None:
    """Launches the RTop-K kernel as ``request`` (built for device ``"cuda:N"``) asks, on that
    device and the CUDA stream ``stream`` (a raw ``cudaStream_t``, torch's current stream
    of that device), over ``n`` contiguous rows of width ``m`` of the request's dtype (any of
    the nine; float64 and int64 rows on the kernel's 64-bit keys, per-row arrays and the
    threshold output included).
    ``pointers`` are device addresses, 0 for a buffer the call has none of:
    ``(x, values, indices, iterations, lengths, k_per_row, hint, threshold)`` — the input,
    ``n × K`` values of the dtype and ``n × K`` indices of the index type (K the request's
    output width), ``n`` int32 iteration counts (given exactly when the request asks for
    them), and docs/contract.md §5's per-row arrays: ``n`` uint32 lengths and ``n`` uint32 k
    (given exactly where the request has lengths or a per-row k: the kernel reads these,
    cutting each length to ``m`` and each k to K), ``n`` float32 hints and the ``n`` float32
    threshold output (given exactly when the request asks for it). The library checks the
    request against the rows and the buffers first (``ValueError``); nothing is launched when
    ``n`` or ``k`` is 0. Asynchronous: no host synchronisation, no device allocation for the
    outputs (capturable by CUDA graphs). Raises ``CudaUnavailableError`` without a driver."""

def grouped_select(
    x: npt.NDArray[Any],
    dtype: str,
    k: int,
    groups: int,
    top_groups: int,
    score: str,
    algo: str,
) -> Tuple[npt.NDArray[Any], npt.NDArray[np.int64]]:
    """The grouped selection (docs/contract.md §8) of the 2-D array ``x`` (rows along the last
    axis, any strides) of element type ``dtype``: ``x`` is float32 for ``"float32"``, a uint16
    array of the bit patterns (read in place) for ``"float16"`` and ``"bfloat16"``. ``k``
    experts per row from the best ``top_groups`` of ``groups`` groups scored by ``score``
    (``"max"`` or ``"sum2"``), by ``algo`` (``auto``, ``reference``, ``sim``, ``cuda``); the
    GIL is released while it runs. Returns ``(N, k)`` values (float32, or uint16 bit patterns
    of the 16-bit type) and ``(N, k)`` int64 indices, each row sorted. ``ValueError`` for a
    selection that does not fit the rows or an unknown name, ``TypeError`` for another dtype
    or a bool count."""

def grouped_launch(
    dtype: str,
    n: int,
    m: int,
    k: int,
    groups: int,
    top_groups: int,
    score: str,
    index_bits: int,
    pointers: Tuple[int, int, int],
    device: int,
    stream: int,
) -> None:
    """Launches the grouped selection of :func:`grouped_select` on CUDA device ``device``, on
    the CUDA stream ``stream`` (a raw ``cudaStream_t``: torch's current stream of that
    device), over ``n`` contiguous rows of width ``m`` of ``dtype`` (float32, float16 or
    bfloat16). ``pointers`` are the device addresses ``(x, values, indices)``: the input,
    ``n × k`` values of the dtype and ``n × k`` indices of ``index_bits`` (32: uint32, 64:
    int64). Every argument is checked first, before any device is opened (``ValueError``,
    ``TypeError``); nothing is launched when ``n`` or ``k`` is 0 (``n = 0``: a check only).
    Asynchronous: no host synchronisation, no device allocation (capturable by CUDA graphs
    once the kernel is built: the first call of a dtype and index width on a device builds
    it). Raises ``CudaUnavailableError`` without a driver."""

def jax_handler(platform: str) -> int:
    """The address of the XLA FFI handler of ``rtopk.jax`` for ``platform`` (``"cpu"`` or
    ``"cuda"``), to wrap with ``jax.ffi.pycapsule``. Raises ``ValueError`` for others."""

def _panic_for_tests(detach: bool) -> None:
    """Panics inside the boundary's guard (tests: the panic becomes ``InternalError``)."""
