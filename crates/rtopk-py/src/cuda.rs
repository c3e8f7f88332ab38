//! `rtopk.cuda` and the CUDA path of `rtopk.topk`: the launch on torch's CUDA tensors (raw
//! device addresses on torch's current stream), whether the GPU path can run here, and the
//! GPU kernel's equivalence check (as `rtopk verify cuda` runs it).

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rtopk::cuda::Shape;

use crate::engine::{self, Pointers};
use crate::errors::{detached, guard, to_py, value_error};
use crate::request::{Request, integer};

/// Row-wise top-k of `n` contiguous rows of `m` elements of the request's dtype on the
/// request's CUDA device (`cuda:N`), queued on the stream whose handle is `stream` (torch's
/// current stream of that device). `pointers` are device addresses, 0 for each buffer the call
/// has none of: `(x, values, indices, iterations, lengths, k_per_row, hint, threshold)` — the
/// rows (`n * m` of the dtype), the values (`n * K` of the dtype, K the request's output
/// width) and indices (`n * K` of the request's index type, written at that width by the
/// kernel), the iteration counts (`n` int32, given exactly when the request asks for them),
/// and the per-row arrays of docs/contract.md §5: lengths and k (`n` uint32 each, given
/// exactly where the request has lengths or a k per row; the kernel reads these, the
/// request's own host arrays only give the outputs' width), hints (`n` float32) and the
/// threshold output (`n` float32, given exactly when the request asks for it).
///
/// The library checks the request against the rows and the buffers first
/// (`rtopk::cuda::check_raw`, before any device is opened). Nothing is launched when `n` or
/// `k` is 0. Nothing is allocated by the call for its outputs, copied or synchronised: it
/// queues the launches of the request's program and returns, so it can be captured in a CUDA
/// graph once the kernels are built (the first call on a device builds the ones it needs with
/// NVRTC, ~1 s). The caller (`rtopk.ops`) passes tensors it allocated on that device with
/// those sizes, made contiguous, and keeps them alive.
#[pyfunction]
pub(crate) fn cuda_launch(
    py: Python<'_>,
    request: &Request,
    n: &Bound<'_, PyAny>,
    m: &Bound<'_, PyAny>,
    pointers: (u64, u64, u64, u64, u64, u64, u64, u64),
    stream: u64,
) -> PyResult<()> {
    guard(|| {
        let (n, m) = (integer("n", n)?, integer("m", m)?);
        let r = &request.inner;
        let k = request.check_rows(n, m)?;
        let (x, values, indices, iterations, lengths, k_per_row, hint, threshold) = pointers;
        if n > 0 && (threshold != 0) != r.wanted().threshold {
            // as the iteration counts: a threshold buffer exactly when one is asked for (no
            // rows: an empty tensor may have no address)
            return Err(value_error(if threshold == 0 {
                "the request asks for the threshold output: give its device buffer"
            } else {
                "a threshold buffer is given but the request asks for no threshold"
            }));
        }
        if n == 0 || k == 0 {
            return Ok(());
        }
        let shape = Shape { n, m, dtype: request.dtype };
        let ptrs = Pointers { x, values, indices, iterations, lengths, k_per_row, hint, threshold };
        // SAFETY: rtopk.ops passes the addresses of contiguous torch tensors it allocated on
        // the request's device (n*m and n*K of the request's dtype, n*K indices of its index
        // type, n int32 counts, n int32 lengths and k, n float32 hints and thresholds, or 0
        // where the call has none), held alive by the caller while torch's stream `stream` of
        // that device — whose context is the device's primary context, torch's and the
        // library's — runs the queued work; the caching allocator does not reuse them before
        // that work ends. A bad call is refused before any device is opened.
        #[allow(unsafe_code)]
        let queued =
            unsafe { engine::gpu_queue_if_ready(r, shape, ptrs, stream) }.map_err(to_py)?;
        if queued {
            // queued, not run: attached, a launch costs less than releasing the interpreter
            return Ok(());
        }
        // the first launch of these kernels on this device builds them (NVRTC, about a
        // second): other Python threads run meanwhile
        detached(py, || engine::gpu_prepare(r, shape))?;
        // SAFETY: as above.
        #[allow(unsafe_code)]
        let queued = unsafe { engine::gpu_queue(r, shape, ptrs, stream) };
        queued.map_err(to_py)
    })
}

/// The `n` int64 entries of a per-row array (lengths or k) at device address `entries`,
/// written at `words` as the `n` uint32 words `cuda_launch` reads, each clamped to
/// `[0, bound]`: one launch on CUDA device `device`, queued on `stream` (torch's current
/// stream of that device), nothing synchronised. The first call on a device loads the unit
/// (shipped, or NVRTC) with the interpreter released.
#[pyfunction]
pub(crate) fn cuda_per_row_words(
    py: Python<'_>,
    device: &Bound<'_, PyAny>,
    pointers: (u64, u64),
    n: &Bound<'_, PyAny>,
    bound: &Bound<'_, PyAny>,
    stream: u64,
) -> PyResult<()> {
    guard(|| {
        let (device, n) = (integer("device", device)?, integer("n", n)?);
        let bound = u32::try_from(integer("bound", bound)?)
            .map_err(|_| value_error("bound: at most 2^32 - 1 (a row width or output width)"))?;
        let (entries, words) = pointers;
        let n = n as u64;
        // SAFETY: rtopk._eager.words_of_int64 passes the addresses of two contiguous torch
        // tensors on device `device` — n int64 entries and n int32 words it allocated — held
        // alive by the caller while torch's stream `stream` of that device (its primary
        // context's) runs the queued launch; null addresses are refused before anything is
        // read.
        #[allow(unsafe_code)]
        let queued = unsafe {
            rtopk::cuda::per_row_words_raw_if_ready(device, entries, words, n, bound, stream)
        }
        .map_err(to_py)?;
        if queued {
            return Ok(());
        }
        detached(py, || rtopk::cuda::prepare_per_row_words(device))?;
        // SAFETY: as above.
        #[allow(unsafe_code)]
        let done =
            unsafe { rtopk::cuda::per_row_words_raw(device, entries, words, n, bound, stream) };
        done.map_err(to_py)
    })
}

/// `true` when the CUDA driver loads and the kernels can be had: NVRTC loads, or units are
/// shipped (a GPU may still be absent).
#[pyfunction]
pub(crate) fn cuda_libraries_present() -> bool {
    engine::cuda_libraries_present()
}

/// Makes the kernel units shipped in `dir` (its `sm_XY/` subdirectories) available to every
/// later kernel load of the process: what the package does with its own `_units` on import.
#[pyfunction]
pub(crate) fn cuda_add_units_dir(dir: &str) {
    engine::cuda_add_units_dir(dir);
}

/// Compares the GPU kernel on device `device` with `bisect` and the warp simulator over every
/// launch shape, input family, k, search and mode, in the element types named by `dtypes`
/// (every type the kernel takes where empty): values, indices and iteration counts.
/// Returns a dict: device, cases, rows, widths, mismatches (empty when all agree).
#[pyfunction]
#[pyo3(signature = (*, quick, device, dtypes))]
pub(crate) fn cuda_verify<'py>(
    py: Python<'py>,
    quick: bool,
    device: &Bound<'py, PyAny>,
    dtypes: Vec<String>,
) -> PyResult<Bound<'py, PyDict>> {
    guard(|| {
        let device = integer("device", device)?;
        let elems = dtypes
            .iter()
            .map(|name| {
                rtopk_tools::gpu::ElemType::from_name(name).ok_or_else(|| {
                    PyTypeError::new_err(format!(
                        "dtypes: the kernel does not take '{name}' (it takes float32, float16, \
                         bfloat16, int8, uint8, int16, int32, float64 and int64)"
                    ))
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        let report = detached(py, move || engine::cuda_verify(quick, device, &elems))?;
        let d = PyDict::new(py);
        d.set_item("device", report.device)?;
        d.set_item("cases", report.cases)?;
        d.set_item("rows", report.rows)?;
        d.set_item("widths", report.widths)?;
        d.set_item("mismatches", report.mismatches)?;
        Ok(d)
    })
}

/// Builds every kernel unit for device `device` (NVRTC on every core, into the disk cache; the
/// interpreter released meanwhile). Returns a dict: device, units, compiled, shipped, ms.
#[pyfunction]
#[pyo3(signature = (*, device))]
pub(crate) fn cuda_prepare_all<'py>(
    py: Python<'py>,
    device: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    guard(|| {
        let device = integer("device", device)?;
        let done = detached(py, move || engine::gpu_prepare_all(device))?;
        let d = PyDict::new(py);
        d.set_item("device", done.device)?;
        d.set_item("units", done.units)?;
        d.set_item("compiled", done.compiled)?;
        d.set_item("shipped", done.shipped)?;
        d.set_item("ms", done.ms)?;
        Ok(d)
    })
}

/// Panics inside the boundary's guard: lets the tests check that a Rust panic becomes
/// `rtopk.InternalError` and leaves the interpreter running.
#[pyfunction]
pub(crate) fn _panic_for_tests(py: Python<'_>, detach: bool) -> PyResult<()> {
    if detach {
        detached(py, || -> Result<(), rtopk::Error> { panic!("deliberate panic (detached)") })
    } else {
        guard(|| -> PyResult<()> { panic!("deliberate panic (attached)") })
    }
}
