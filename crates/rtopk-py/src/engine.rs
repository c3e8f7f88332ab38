//! Every call from this crate into the workspace's engines, and every engine type it names,
//! in one place: the rest of the crate talks to `crate::engine` and to `rtopk`'s own types
//! (`Algorithm`, `Params`, `Dtype`, `Error`, ...), never to `rtopk_cuda`, `warp_sim`,
//! `topk_ref` or `analysis`. When crates/rtopk re-exports what a face needs, only this module
//! changes.

use std::sync::Arc;

use ndarray::{ArrayView1, ArrayView2};
use rtopk::{Algorithm, Bisect, Error, Mode, Params, registry};

pub(crate) use topk_ref::order::ordered_value_of_key;
pub(crate) use warp_sim::mutant::MutantReport;
pub(crate) use warp_sim::rtopk::{Moved, Phase, TraceChunk, TraceStep};
pub(crate) use warp_sim::{DiagSummary, Diagnostic, LaunchResult, Mutant, RowTrace, SearchExit};

/// The algorithm `name` of the library's registry, configured with `params` (checked there).
pub(crate) fn resolve(name: &str, params: &Params) -> Result<Box<dyn Algorithm>, Error> {
    registry::resolve(name, params)
}

/// `0 <= k <= m` and `m >= 1`, with the library's message otherwise.
pub(crate) fn check_shape(m: usize, k: usize) -> Result<(), Error> {
    Ok(topk_ref::check_shape(m, k)?)
}

/// The error for an output (or a copy) of `n × m` elements that cannot be allocated.
pub(crate) fn too_large(what: &'static str, n: usize, m: usize) -> Error {
    topk_ref::TopKError::TooLarge { what, n, m }.into()
}

/// The Python exception class an engine error maps to (chosen by variant, never by text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// The caller's input: `ValueError`.
    Value,
    /// A size that cannot be allocated: `MemoryError`.
    Memory,
    /// No CUDA driver or NVRTC: `rtopk.CudaUnavailableError`.
    CudaUnavailable,
    /// Any other GPU failure: `rtopk.CudaError`.
    Cuda,
    /// Files: `OSError`.
    Os,
    /// What the simulated kernel or the analysis did: `RuntimeError`.
    Runtime,
}

/// The class of an engine's error inside `rtopk::Error` (`None`: not an engine's).
pub(crate) fn class_of(e: &Error) -> Option<Class> {
    use rtopk_cuda::CudaError as C;
    use warp_sim::SimError as S;
    Some(match e {
        Error::TopK(t) => topk_class(t),
        Error::Cuda(C::NoDriver | C::NoNvrtc) => Class::CudaUnavailable,
        Error::Cuda(C::TopK(t)) => topk_class(t),
        Error::Cuda(C::TooLarge { .. }) => Class::Value,
        Error::Cuda(_) => Class::Cuda,
        Error::Sim(S::TopK(t)) => topk_class(t),
        Error::Sim(S::InvalidLaunch(_)) => Class::Value,
        // a fatal diagnostic, the watchdog, a drawing failure
        Error::Sim(_) => Class::Runtime,
        Error::Analysis(a) if a.is_bad_input() => Class::Value,
        Error::Analysis(analysis::AnalysisError::Io { .. }) => Class::Os,
        Error::Analysis(_) => Class::Runtime,
        _ => return None,
    })
}

/// A refused top-k request: too large to allocate, or the caller's input (k > M, M = 0, rows
/// too wide, a parameter out of its domain).
fn topk_class(e: &topk_ref::TopKError) -> Class {
    match e {
        topk_ref::TopKError::TooLarge { .. } => Class::Memory,
        _ => Class::Value,
    }
}

// ---------------------------------------------------------------------------------------
// The GPU kernel (rtopk-cuda)

/// One launch of the RTop-K kernel on a caller's device buffers, checked and ready to queue.
pub(crate) struct GpuLaunch {
    gpu: Arc<rtopk_cuda::CudaTopK>,
    launch: rtopk_cuda::Launch,
    types: rtopk_cuda::DataTypes,
    bufs: rtopk_cuda::RawBuffers,
}

/// The device addresses of a launch: input rows, values, indices, iteration counts (0: none).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pointers {
    pub(crate) x: u64,
    pub(crate) values: u64,
    pub(crate) indices: u64,
    pub(crate) iterations: u64,
}

/// What a launch selects: `n` rows of `m` elements of `dtype`, `k` of each by `mode`,
/// `sorted` or not, with the bisection `bisect`, indices `index_bits` wide.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GpuShape {
    pub(crate) n: usize,
    pub(crate) m: usize,
    pub(crate) k: usize,
    pub(crate) mode: Mode,
    pub(crate) sorted: bool,
    pub(crate) bisect: Bisect,
    pub(crate) dtype: rtopk::Dtype,
    pub(crate) index_bits: u32,
}

/// The launch of `shape` on device `device` over `ptrs` (opens the device once per process).
pub(crate) fn gpu_launch(
    shape: GpuShape,
    ptrs: Pointers,
    device: usize,
) -> Result<GpuLaunch, Error> {
    use rtopk_cuda::{DataTypes, ElemType, IndexType, Launch, RawBuffers};
    let elem = match shape.dtype {
        rtopk::Dtype::Float32 => ElemType::F32,
        rtopk::Dtype::Float16 => ElemType::F16,
        rtopk::Dtype::Bfloat16 => ElemType::Bf16,
    };
    let index = if shape.index_bits == 32 { IndexType::U32 } else { IndexType::I64 };
    let GpuShape { n, m, k, mode, sorted, bisect, .. } = shape;
    let launch = Launch { n, m, k, mode, bisect, sorted, elem };
    let bufs = RawBuffers {
        x: ptrs.x,
        values: ptrs.values,
        indices: ptrs.indices,
        iterations: ptrs.iterations,
    };
    let gpu = rtopk_cuda::shared_device(device)?;
    Ok(GpuLaunch { gpu, launch, types: DataTypes { elem, index }, bufs })
}

impl GpuLaunch {
    fn counts(&self) -> bool {
        self.bufs.iterations != 0
    }

    /// `true` when the launch's kernels are loaded (queueing it builds nothing).
    pub(crate) fn is_ready(&self) -> Result<bool, Error> {
        let units = self.gpu.raw_units(&self.launch, self.types, self.counts())?;
        Ok(self.gpu.is_loaded(&units))
    }

    /// Builds and loads the launch's kernels (NVRTC, about a second the first time).
    pub(crate) fn build(&self) -> Result<(), Error> {
        let units = self.gpu.raw_units(&self.launch, self.types, self.counts())?;
        Ok(self.gpu.prepare(&units)?)
    }

    /// Queues the launch on `stream`; nothing is allocated by the caller, copied or
    /// synchronised.
    ///
    /// # Safety
    /// The pointers must be device memory of this device of the sizes `rtopk_cuda::RawBuffers`
    /// states for the launch, valid until the work queued on `stream` completes; `stream` a
    /// stream of this device's primary context (or 0).
    #[allow(unsafe_code)]
    pub(crate) unsafe fn queue(&self, stream: u64) -> Result<(), Error> {
        // SAFETY: this function's own contract, passed on unchanged.
        Ok(unsafe { self.gpu.select_raw(&self.launch, self.types, self.bufs, stream) }?)
    }
}

/// `true` when the CUDA driver and NVRTC libraries load (a GPU may still be absent).
pub(crate) fn cuda_libraries_present() -> bool {
    rtopk_cuda::check_libraries().is_ok()
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

/// rtopk-cuda's equivalence check on `device`: the GPU kernel against `bisect` and the warp
/// simulator over every launch shape, input family, k, search, mode and element type.
pub(crate) fn cuda_verify(quick: bool, device: usize) -> Result<VerifyReport, Error> {
    use rtopk_cuda::verify::{Reference, WIDTHS, check_all};
    use topk_ref::RowTopK;
    rtopk_cuda::check_libraries()?;
    let mut gpu = rtopk_cuda::CudaTopK::new(device)?;
    let per_case = if quick { QUICK_ELEMENTS } else { FULL_ELEMENTS };
    // check_all runs the simulator on every case itself (the GPU's launch family)
    let bisect = |b: Bisect| -> Box<dyn RowTopK> { Box::new(b) };
    let references: [Reference<'_>; 1] = [("bisect", &bisect)];
    let report = check_all(&mut gpu, &WIDTHS, per_case, &references, &rtopk_cuda::ElemType::ALL)?;
    Ok(VerifyReport {
        device: gpu.device_name().to_string(),
        cases: report.cases,
        rows: report.rows,
        widths: WIDTHS.to_vec(),
        mismatches: report.mismatches,
    })
}

// ---------------------------------------------------------------------------------------
// The warp simulator (warp-sim)

/// The seeded bugs' names, in catalog order.
pub(crate) fn mutant_names() -> Vec<&'static str> {
    Mutant::ALL.iter().map(|m| m.name()).collect()
}

/// The launch strategies' names (`auto` first).
pub(crate) fn strategy_names() -> Vec<&'static str> {
    warp_sim::Strategy::ALL.iter().map(|s| s.name()).collect()
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
fn strategy(name: &str) -> Result<warp_sim::Strategy, String> {
    warp_sim::Strategy::ALL
        .into_iter()
        .find(|s| s.name() == name)
        .ok_or_else(|| format!("unknown strategy '{name}'; known: {}", strategy_names().join(", ")))
}

/// The arguments of a simulated launch, checked (unknown names are the `Err` message).
pub(crate) struct SimPlan {
    args: warp_sim::KernelArgs,
    config: warp_sim::SimConfig,
}

/// Checks the names of `launch` for `n` rows of `m`.
pub(crate) fn sim_plan(launch: &SimLaunch<'_>, n: usize, m: usize) -> Result<SimPlan, String> {
    use warp_sim::{DiagPolicy, KernelArgs, Schedule, SimConfig};
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
    let mut sim = warp_sim::Simulator::new(plan.config);
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
    warp_sim::mutant::catalog()
}

/// One row through the simulated kernel (the launch family the CUDA launcher's plan picks
/// for one row of that width): the trace, the launch's diagnostics as text, their total.
pub(crate) fn trace_row(
    row: ArrayView1<'_, f32>,
    k: usize,
    mode: Mode,
    bisect: Bisect,
) -> Result<(RowTrace, Vec<String>, u64), Error> {
    use warp_sim::{KernelArgs, SimConfig, Simulator};
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
// Statistics (analysis)

/// E(n) of Appendix A, eq. (4), on standard-normal rows of width `m`.
pub(crate) fn expected_iterations(m: usize, k: usize) -> Result<f64, Error> {
    Ok(analysis::expectation::expected_iterations(m, k)?)
}

/// The input family named `name` (normal, uniform, ...).
pub(crate) fn family(name: &str) -> Result<rtopk::Family, Error> {
    name.parse().map_err(|e: topk_ref::TopKError| e.into())
}
