//! `rtopk.cuda`: the launch on torch's CUDA tensors (raw device addresses on torch's current
//! stream), whether the GPU path can run here, and the GPU kernel's equivalence check
//! (rtopk-cuda's `verify`, as `rtopk verify cuda` runs it).

use pyo3::prelude::*;
use pyo3::types::PyDict;
use rtopk_cuda::verify::{Reference, WIDTHS, check_all};
use rtopk_cuda::{
    CudaTopK, DataTypes, ElemType, IndexType, Launch, RawBuffers, check_libraries, shared_device,
};
use topk_ref::{Bisect, RowTopK};

use std::sync::Arc;

use crate::errors::{detached, guard, to_py, value_error};
use crate::select::{count, mode, params};

/// Row-wise top-k of `n` rows of `m` elements of `dtype` ("float32", "float16" or
/// "bfloat16") at device address `x_ptr` on CUDA device `device`, queued on the stream whose
/// handle is `stream` (torch's current stream): values into `values_ptr` (`n * k` of `dtype`),
/// indices into `indices_ptr` (`n * k` of
/// `index_bits` = 32 or 64, written at that width by the kernel), iteration counts into
/// `iterations_ptr` (`n` int32) unless it is 0. Nothing is allocated, copied or
/// synchronised: the call queues one launch (two with `sorted`) and returns, so it can be
/// captured in a CUDA graph once the kernels are built (the first call on a device builds the
/// one it needs with NVRTC, ~1 s). The caller (`rtopk.ops`) passes tensors it allocated on that
/// device with those sizes, made contiguous, and keeps them alive.
#[pyfunction]
#[pyo3(signature = (
    x_ptr, n, m, k, largest, sorted, max_iter, precision, values_ptr, indices_ptr, index_bits,
    iterations_ptr, stream, device, dtype = "float32"
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn cuda_topk(
    py: Python<'_>,
    x_ptr: u64,
    n: usize,
    m: usize,
    k: usize,
    largest: bool,
    sorted: bool,
    max_iter: i64,
    precision: f64,
    values_ptr: u64,
    indices_ptr: u64,
    index_bits: u32,
    iterations_ptr: u64,
    stream: u64,
    device: usize,
    dtype: &str,
) -> PyResult<()> {
    guard(|| {
        let index = match index_bits {
            32 => IndexType::U32,
            64 => IndexType::I64,
            other => return Err(value_error(format!("index_bits must be 32 or 64, got {other}"))),
        };
        let elem = match dtype {
            "float32" => ElemType::F32,
            "float16" => ElemType::F16,
            "bfloat16" => ElemType::Bf16,
            other => {
                return Err(value_error(format!(
                    "dtype must be float32, float16 or bfloat16, got {other}"
                )));
            }
        };
        let types = DataTypes { elem, index };
        let max_iter = (max_iter >= 0).then_some(max_iter);
        let bisect = params(max_iter, precision)?.bisect().map_err(to_py)?;
        let launch = Launch { n, m, k, mode: mode(largest), bisect, sorted, elem };
        let bufs = RawBuffers {
            x: x_ptr,
            values: values_ptr,
            indices: indices_ptr,
            iterations: iterations_ptr,
        };
        let gpu = shared_device(device).map_err(|e| to_py(e.into()))?;
        if !launch_ready(&gpu, &launch, types, bufs.iterations != 0)? {
            // the first launch of these kernels on this device builds them (NVRTC, about a
            // second): other Python threads run meanwhile
            let g = Arc::clone(&gpu);
            detached(py, move || {
                Ok(g.prepare(&g.raw_units(&launch, types, bufs.iterations != 0)?)?)
            })?;
        }
        // SAFETY: rtopk.ops passes the addresses of contiguous torch tensors it allocated on
        // device `device` (n*m and n*k of `dtype`, n*k indices of `index_bits`, n int32 or none),
        // held alive by the caller while torch's stream `stream` of that device — whose context
        // is the device's primary context, torch's and rtopk-cuda's — runs the queued work; the
        // caching allocator does not reuse them before that work ends.
        #[allow(unsafe_code)]
        let queued = unsafe { gpu.select_raw(&launch, types, bufs, stream) };
        // queued, not run: attached, a launch costs less than releasing the interpreter would
        queued.map_err(|e| to_py(e.into()))
    })
}

/// `true` when the launch's kernels are loaded on `gpu` (so launching builds nothing).
fn launch_ready(gpu: &CudaTopK, launch: &Launch, types: DataTypes, counts: bool) -> PyResult<bool> {
    let units = gpu.raw_units(launch, types, counts).map_err(|e| to_py(e.into()))?;
    Ok(gpu.is_loaded(&units))
}

/// Elements per case of the quick and the full check (as `rtopk verify cuda [--quick]`).
const QUICK_ELEMENTS: usize = 1 << 16;
const FULL_ELEMENTS: usize = 1 << 21;

/// `true` when the CUDA driver and NVRTC libraries load (a GPU may still be absent).
#[pyfunction]
pub(crate) fn cuda_libraries_present() -> bool {
    check_libraries().is_ok()
}

/// Compares the GPU kernel on device `device` with `bisect` and the warp simulator over every
/// launch shape, input family, k, search and mode: values, indices and iteration counts.
/// Returns a dict: device, cases, rows, widths, mismatches (empty when all agree).
#[pyfunction]
#[pyo3(signature = (quick, device))]
pub(crate) fn cuda_verify(py: Python<'_>, quick: bool, device: i64) -> PyResult<Bound<'_, PyDict>> {
    guard(|| {
        let device = count("device", device)?;
        let (name, report) = detached(py, move || {
            check_libraries()?;
            let mut gpu = CudaTopK::new(device)?;
            let per_case = if quick { QUICK_ELEMENTS } else { FULL_ELEMENTS };
            // check_all runs the simulator on every case itself (the GPU's launch family)
            let bisect = |b: Bisect| -> Box<dyn RowTopK> { Box::new(b) };
            let references: [Reference<'_>; 1] = [("bisect", &bisect)];
            let report = check_all(&mut gpu, &WIDTHS, per_case, &references, &ElemType::ALL)?;
            Ok((gpu.device_name().to_string(), report))
        })?;
        let d = PyDict::new(py);
        d.set_item("device", name)?;
        d.set_item("cases", report.cases)?;
        d.set_item("rows", report.rows)?;
        d.set_item("widths", WIDTHS.to_vec())?;
        d.set_item("mismatches", report.mismatches)?;
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
