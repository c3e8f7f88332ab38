//! Every call from this crate into the library (`rtopk`, the one door) and its tools crate
//! (`rtopk_tools`), and every type of theirs the rest of the crate names beyond the request's
//! own (`rtopk::Request`, `Dtype`, `Error`, ...), in one place. The crate names no engine
//! crate: the simulator, the GPU kernel, the statistics and the order come through `rtopk`'s
//! re-exports (`rtopk::sim`, `rtopk::cuda`, `rtopk::stats`, `rtopk::order`).

use ndarray::{ArrayView1, ArrayView2};
use rtopk::cuda::{CudaError, RawBuffers, Shape};
use rtopk::sim::SimError;
use rtopk::stats::AnalysisError;
use rtopk::{Bisect, Error, Mode, Request, TopKError};

pub(crate) use rtopk::order::ordered_value_of_key;
pub(crate) use rtopk::sim::{
    DiagSummary, Diagnostic, LaunchResult, Moved, Mutant, MutantReport, Phase, RowTrace,
    SearchExit, TraceChunk, TraceStep,
};

/// The error for an output (or a copy) of `n × m` elements that cannot be allocated.
pub(crate) fn too_large(what: &'static str, n: usize, m: usize) -> Error {
    TopKError::TooLarge { what, n, m }.into()
}

/// The Python exception class a library error maps to (chosen by variant, never by text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// The caller's input: `ValueError`.
    Value,
    /// An element type the algorithm does not take: `TypeError`.
    Type,
    /// A size that cannot be allocated: `MemoryError`.
    Memory,
    /// No CUDA driver or NVRTC: `rtopk.CudaUnavailableError`.
    CudaUnavailable,
    /// Any other GPU failure: `rtopk.CudaError`.
    Cuda,
    /// Files: `OSError`.
    Os,
    /// What the simulated kernel or the analysis did, JSON: `RuntimeError`.
    Runtime,
}

/// The class of a library error.
pub(crate) fn class_of(e: &Error) -> Class {
    match e {
        Error::TopK(t) => topk_class(t),
        Error::Cuda(c) => cuda_class(c),
        Error::Sim(SimError::TopK(t)) => topk_class(t),
        Error::Sim(SimError::InvalidLaunch(_)) => Class::Value,
        // a fatal diagnostic, the watchdog, a drawing failure
        Error::Sim(_) => Class::Runtime,
        Error::Analysis(a) => analysis_class(a),
        Error::DtypeNotSupported { .. } => Class::Type,
        Error::Json(_) => Class::Runtime,
        // Unknown names, refused or conflicting parameters, per-row inputs that do not fit
        // the rows, an algorithm on the wrong device, raw buffers that break the request:
        // the caller's input.
        other if other.is_user_error() => Class::Value,
        _ => Class::Runtime,
    }
}

/// The class of an error of the tools crate (statistics, verification).
pub(crate) fn tools_class(e: &rtopk_tools::Error) -> Class {
    use rtopk_tools::Error as T;
    match e {
        T::Lib(e) => class_of(e),
        T::TopK(t) => topk_class(t),
        T::Analysis(a) => analysis_class(a),
        T::NotEnoughMemory { .. } => Class::Memory,
        T::Json(_) | T::Chart { .. } => Class::Runtime,
        other if other.is_user_error() => Class::Value,
        _ => Class::Os,
    }
}

fn cuda_class(e: &CudaError) -> Class {
    match e {
        CudaError::NoDriver | CudaError::NoNvrtc | CudaError::NotShipped { .. } => {
            Class::CudaUnavailable
        }
        CudaError::TopK(t) => topk_class(t),
        // a shape past the kernels' index types, a 64-bit request the wide rows do not take (a
        // strategy forced on them)
        CudaError::TooLarge { .. } | CudaError::Wide { .. } => Class::Value,
        _ => Class::Cuda,
    }
}

fn analysis_class(e: &AnalysisError) -> Class {
    match e {
        a if a.is_bad_input() => Class::Value,
        AnalysisError::Io { .. } => Class::Os,
        _ => Class::Runtime,
    }
}

/// A refused top-k request: too large to allocate, or the caller's input (k > M, M = 0, rows
/// too wide, a parameter out of its domain).
fn topk_class(e: &TopKError) -> Class {
    match e {
        TopKError::TooLarge { .. } => Class::Memory,
        _ => Class::Value,
    }
}

// ---------------------------------------------------------------------------------------
// The GPU kernel on a framework's device buffers (`rtopk::cuda`)

/// The device addresses of a launch: input rows, values, indices, iteration counts, and the
/// per-row arrays of docs/contract.md §5 (lengths and k as `n` u32, hints and the threshold
/// output as `n` f32); 0 for each one the call has none of.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Pointers {
    pub(crate) x: u64,
    pub(crate) values: u64,
    pub(crate) indices: u64,
    pub(crate) iterations: u64,
    pub(crate) lengths: u64,
    pub(crate) k_per_row: u64,
    pub(crate) hint: u64,
    pub(crate) threshold: u64,
}

impl From<Pointers> for RawBuffers {
    fn from(p: Pointers) -> Self {
        RawBuffers {
            x: p.x,
            values: p.values,
            indices: p.indices,
            iterations: p.iterations,
            lengths: p.lengths,
            k_per_row: p.k_per_row,
            hint: p.hint,
            threshold: p.threshold,
        }
    }
}

/// Builds and loads the kernels of `request` on `shape` (NVRTC, about a second the first
/// time on a device).
pub(crate) fn gpu_prepare(request: &Request, shape: Shape) -> Result<(), Error> {
    rtopk::cuda::prepare(request, shape)
}

/// Builds and loads every kernel unit of GPU `device` (see `rtopk::cuda::prepare_all`).
pub(crate) fn gpu_prepare_all(device: usize) -> Result<rtopk::cuda::Prepared, Error> {
    rtopk::cuda::prepare_all(device)
}

/// Queues `request` on `shape` over `ptrs` on `stream`; nothing is allocated by the caller,
/// copied or synchronised.
///
/// # Safety
/// As `rtopk::cuda::select_raw`: the pointers are memory of the request's GPU of the sizes
/// it states, valid until the work queued on `stream` completes; `stream` is a stream of
/// that device's primary context (or 0).
#[allow(unsafe_code)]
pub(crate) unsafe fn gpu_queue(
    request: &Request,
    shape: Shape,
    ptrs: Pointers,
    stream: u64,
) -> Result<(), Error> {
    // SAFETY: this function's own contract, passed on unchanged.
    unsafe { rtopk::cuda::select_raw(request, shape, ptrs.into(), stream) }
}

/// [`gpu_queue`] where the kernels are loaded (`true`); `false`, queueing nothing, where they
/// are not ([`gpu_prepare`] first).
///
/// # Safety
/// As [`gpu_queue`].
#[allow(unsafe_code)]
pub(crate) unsafe fn gpu_queue_if_ready(
    request: &Request,
    shape: Shape,
    ptrs: Pointers,
    stream: u64,
) -> Result<bool, Error> {
    // SAFETY: this function's own contract, passed on unchanged.
    unsafe { rtopk::cuda::select_raw_if_ready(request, shape, ptrs.into(), stream) }
}

/// `true` when the CUDA driver loads and the kernels can be had: NVRTC loads, or the package
/// ships its units (a GPU may still be absent).
pub(crate) fn cuda_libraries_present() -> bool {
    rtopk::cuda::can_run()
}

/// Makes the units shipped in `dir` available to every later kernel load.
pub(crate) fn cuda_add_units_dir(dir: &str) {
    rtopk::cuda::add_units_dir(dir);
}

/// What [`cuda_verify`] compared.
pub(crate) struct VerifyReport {
    pub(crate) device: String,
    pub(crate) cases: usize,
    pub(crate) rows: usize,
    pub(crate) widths: Vec<usize>,
    pub(crate) mismatches: Vec<String>,
}

/// Elements per case of the quick and the full check (as `rtopk verify cuda [--quick]`).
const QUICK_ELEMENTS: usize = 1 << 16;
const FULL_ELEMENTS: usize = 1 << 21;

/// The tools' equivalence check on `device`: the GPU kernel against `bisect` and the warp
/// simulator over every launch shape, input family, k, search, mode and element type of
/// `elems` (every type the kernel takes where empty).
pub(crate) fn cuda_verify(
    quick: bool,
    device: usize,
    elems: &[rtopk_tools::gpu::ElemType],
) -> Result<VerifyReport, Error> {
    use rtopk::RowTopK;
    use rtopk_tools::gpu::{CudaTopK, ElemType};
    use rtopk_tools::verify::{Reference, WIDTHS, check_all};
    let mut gpu = CudaTopK::new(device)?;
    let per_case = if quick { QUICK_ELEMENTS } else { FULL_ELEMENTS };
    // check_all runs the simulator on every case itself (the GPU's launch family)
    let bisect = |b: Bisect| -> Box<dyn RowTopK> { Box::new(b) };
    let references: [Reference<'_>; 1] = [("bisect", &bisect)];
    let every: Vec<ElemType> = ElemType::ALL.into_iter().chain(ElemType::WIDE).collect();
    let elems = if elems.is_empty() { &every[..] } else { elems };
    let report = check_all(&mut gpu, &WIDTHS, per_case, &references, elems)?;
    Ok(VerifyReport {
        device: gpu.device_name().to_string(),
        cases: report.cases,
        rows: report.rows,
        widths: WIDTHS.to_vec(),
        mismatches: report.mismatches,
    })
}

// ---------------------------------------------------------------------------------------
// The warp simulator (`rtopk::sim`)

/// The seeded bugs' names, in catalog order.
pub(crate) fn mutant_names() -> Vec<&'static str> {
    Mutant::ALL.iter().map(|m| m.name()).collect()
}

/// The launch strategies' names (`auto` first).
pub(crate) fn strategy_names() -> Vec<&'static str> {
    rtopk::sim::Strategy::ALL.iter().map(|s| s.name()).collect()
}

/// A simulated launch over a matrix: the kernel's arguments and the simulator's options.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SimLaunch<'a> {
    pub(crate) k: usize,
    pub(crate) mode: Mode,
    pub(crate) sorted: bool,
    pub(crate) bisect: Bisect,
    /// A seeded bug by name (catalog names, kebab-case).
    pub(crate) mutant: Option<&'a str>,
    /// The launch strategy by name (`auto`, `quarter`, `half`, `warp`, `block`, ...).
    pub(crate) strategy: &'a str,
    /// Lanes and warps in order (None) or in the order this seed shuffles.
    pub(crate) schedule_seed: Option<u64>,
}

/// The mutant named `name`, or a `ValueError`-class error naming every one.
fn mutant(name: &str) -> Result<Mutant, String> {
    Mutant::ALL
        .into_iter()
        .find(|m| m.name() == name)
        .ok_or_else(|| format!("unknown mutant '{name}'; known: {}", mutant_names().join(", ")))
}

/// The strategy named `name`.
fn strategy(name: &str) -> Result<rtopk::sim::Strategy, String> {
    rtopk::sim::Strategy::ALL
        .into_iter()
        .find(|s| s.name() == name)
        .ok_or_else(|| format!("unknown strategy '{name}'; known: {}", strategy_names().join(", ")))
}

/// The arguments of a simulated launch, checked (unknown names are the `Err` message).
pub(crate) struct SimPlan {
    args: rtopk::sim::KernelArgs,
    config: rtopk::sim::SimConfig,
}

/// Checks the names of `launch` for `n` rows of `m`.
pub(crate) fn sim_plan(launch: &SimLaunch<'_>, n: usize, m: usize) -> Result<SimPlan, String> {
    use rtopk::sim::{DiagPolicy, KernelArgs, Schedule, SimConfig};
    let mutant = launch.mutant.map(mutant).transpose()?;
    let args = KernelArgs { n, m, k: launch.k, mode: launch.mode, bisect: launch.bisect, mutant };
    let schedule = match launch.schedule_seed {
        None => Schedule::InOrder,
        Some(seed) => Schedule::Shuffled { seed },
    };
    let config = SimConfig {
        policy: DiagPolicy::Collect,
        schedule,
        strategy: strategy(launch.strategy)?,
        sorted: launch.sorted,
        ..SimConfig::default()
    };
    Ok(SimPlan { args, config })
}

/// Runs the simulated kernel of `plan` over the `(n, m)` rows of `x`.
pub(crate) fn simulate(plan: SimPlan, x: ArrayView2<'_, f32>) -> Result<LaunchResult, Error> {
    let mut sim = rtopk::sim::Simulator::new(plan.config);
    // Sizes and parameters first: nothing is copied for a launch that cannot run.
    sim.prepare(&plan.args)?;
    if let Some(s) = x.as_slice() {
        return Ok(sim.run(s, &plan.args)?);
    }
    let data = contiguous(x.iter().copied(), x.len())?;
    Ok(sim.run(&data, &plan.args)?)
}

/// The seeded-bug catalog: the clean kernel, then every mutant, over the catalog's suite.
pub(crate) fn mutant_catalog() -> Vec<MutantReport> {
    rtopk::sim::catalog()
}

/// One row through the simulated kernel (the launch family the CUDA launcher's plan picks
/// for one row of that width): the trace, the launch's diagnostics as text, their total.
pub(crate) fn trace_row(
    row: ArrayView1<'_, f32>,
    k: usize,
    mode: Mode,
    bisect: Bisect,
) -> Result<(RowTrace, Vec<String>, u64), Error> {
    use rtopk::sim::{KernelArgs, SimConfig, Simulator};
    let args = KernelArgs { n: 1, m: row.len(), k, mode, bisect, mutant: None };
    let mut sim = Simulator::new(SimConfig::default());
    // Sizes first: a row too wide to simulate is refused before it is copied.
    sim.prepare(&args)?;
    let data = contiguous(row.iter().copied(), row.len())?;
    let (result, trace) = sim.run_traced(&data, &args, 0)?;
    let diagnostics = result.diagnostics.iter().map(ToString::to_string).collect();
    Ok((trace, diagnostics, result.diagnostics_total))
}

/// The SVG picture of a trace.
pub(crate) fn trace_svg(trace: &RowTrace) -> Result<String, Error> {
    Ok(trace.to_svg()?)
}

/// The values of `it` (`len` of them) in a vector allocated fallibly.
fn contiguous(it: impl Iterator<Item = f32>, len: usize) -> Result<Vec<f32>, Error> {
    let mut data = Vec::new();
    data.try_reserve_exact(len).map_err(|_| too_large("input copy", 1, len))?;
    data.extend(it);
    Ok(data)
}

// ---------------------------------------------------------------------------------------
// Statistics (`rtopk::stats`, `rtopk_tools::stats`)

/// E(n) of Appendix A, eq. (4), on standard-normal rows of width `m`.
pub(crate) fn expected_iterations(m: usize, k: usize) -> Result<f64, Error> {
    Ok(rtopk::stats::expected_iterations(m, k)?)
}

/// The input family named `name` (normal, uniform, ...).
pub(crate) fn family(name: &str) -> Result<rtopk::Family, Error> {
    name.parse().map_err(|e: TopKError| e.into())
}

/// The `stats iterations` object of `spec` as JSON.
pub(crate) fn iterations_json(
    spec: &rtopk_tools::stats::IterationsSpec<'_>,
) -> Result<String, rtopk_tools::Error> {
    rtopk_tools::stats::iterations(spec)?.to_json()
}

// ---------------------------------------------------------------------------------------
// The launch program (`rtopk::plan`)

/// The launch program of `request` on `n` rows of width `m` of `dtype`, for the GPU `gpu`
/// names or, without a name, the request's live GPU.
pub(crate) fn program(
    request: &Request,
    n: usize,
    m: usize,
    dtype: rtopk::Dtype,
    gpu: Option<String>,
) -> Result<rtopk::plan::Program, Error> {
    let target = match gpu {
        Some(name) => rtopk::plan::Gpu::Preset(name),
        None => rtopk::plan::Gpu::Device(request.place().ordinal()),
    };
    rtopk::plan::program(request, Shape { n, m, dtype }, &target)
}
