//! The crate's one error type.

use thiserror::Error;

/// Why the GPU path could not run.
#[derive(Debug, Error)]
pub enum CudaError {
    /// No CUDA driver library (`libcuda.so`) could be loaded on this machine.
    #[error(
        "no CUDA driver found (libcuda could not be loaded); the cuda algorithm needs an NVIDIA GPU and driver"
    )]
    NoDriver,
    /// No NVRTC library could be loaded, so the kernel cannot be compiled at run time.
    #[error(
        "no NVRTC library found (libnvrtc could not be loaded); install the CUDA toolkit's NVRTC"
    )]
    NoNvrtc,
    /// A unit is neither shipped for the device's architecture nor can be compiled: no NVRTC.
    #[error(
        "no NVRTC library found (libnvrtc could not be loaded) and {unit} is not shipped for {arch} \
         (docs/kernel.md, \"Shipped units\"); install the CUDA toolkit's NVRTC"
    )]
    NotShipped {
        /// The unit.
        unit: String,
        /// The device's architecture.
        arch: String,
    },
    /// An architecture name that is not a real GPU architecture.
    #[error("{arch}: not a GPU architecture (expected sm_ and a compute capability, e.g. sm_90)")]
    Arch {
        /// The name given.
        arch: String,
    },
    /// A directory of shipped units could not be written, or holds a file that is not one.
    #[error("shipped units in {}: {why}", path.display())]
    Units {
        /// The directory or file.
        path: std::path::PathBuf,
        /// What went wrong.
        why: String,
    },
    /// NVRTC rejected a unit's source (or could not be asked).
    #[error("NVRTC failed to compile {unit} for {arch}:\n{log}")]
    Compile {
        /// The unit (its entry point).
        unit: String,
        /// The architecture it was compiled for.
        arch: String,
        /// The compiler's log.
        log: String,
    },
    /// The kernel files could not be read (a kernel variant's directory).
    #[error("kernel source: {what}")]
    Source {
        /// What went wrong.
        what: String,
    },
    /// A compiled kernel does not match what the launch plan assumes of it.
    #[error("{unit}: {why}")]
    Kernel {
        /// The unit.
        unit: String,
        /// The mismatch.
        why: String,
    },
    /// A forced launch strategy cannot hold the row.
    #[error(
        "strategy {strategy} holds rows of at most {max_row} elements; M = {m} needs another (auto picks one)"
    )]
    Strategy {
        /// The strategy asked for.
        strategy: crate::Strategy,
        /// The row width.
        m: usize,
        /// The widest row it holds.
        max_row: usize,
    },
    /// A forced split (strategy split) of a launch that cannot be split.
    #[error("({n}, {m}) with k = {k} cannot be split: {why}")]
    Split {
        /// Rows.
        n: usize,
        /// Row width.
        m: usize,
        /// Results per row.
        k: usize,
        /// Why not.
        why: &'static str,
    },
    /// A 64-bit request the wide rows do not take (rtopk-plan's `wide`: a forced strategy).
    #[error("{elem} rows on the GPU: {why}")]
    Wide {
        /// The element type's name.
        elem: &'static str,
        /// Why not.
        why: &'static str,
    },
    /// A driver call failed (context creation, allocation, copy, launch, ...).
    #[error("CUDA driver error during {during}: {source}")]
    Driver {
        /// What was being done.
        during: &'static str,
        /// The driver's error.
        #[source]
        source: cudarc::driver::DriverError,
    },
    /// The request itself is invalid (k > M, M = 0, a bad parameter).
    #[error(transparent)]
    TopK(#[from] topk_ref::TopKError),
    /// The shape does not fit the kernel's index types.
    #[error("shape ({n}, {m}) is too large: {why}")]
    TooLarge {
        /// Rows.
        n: usize,
        /// Row width.
        m: usize,
        /// Which limit it exceeds.
        why: &'static str,
    },
    /// The device cannot run what was asked (e.g. 16-bit rows before compute capability 8.0).
    #[error("not supported on this device: {what}")]
    Unsupported {
        /// What, and why.
        what: String,
    },
    /// A timed launch could not be queued behind the spin kernel: the host took longer to
    /// submit it than the GPU took to finish the spin, so the timing would include the host.
    #[error("the host took over {spin_ms} ms to submit a timed launch; timing would include it")]
    Timing {
        /// The longest spin tried, in milliseconds.
        spin_ms: f64,
    },
}

/// Attaches what was being done to a driver error.
pub(crate) fn driver(
    during: &'static str,
) -> impl FnOnce(cudarc::driver::DriverError) -> CudaError {
    move |source| CudaError::Driver { during, source }
}

/// The plan's refusals, as the launcher's: the same request errors, forced strategies and
/// shape limits.
impl From<rtopk_plan::PlanError> for CudaError {
    fn from(e: rtopk_plan::PlanError) -> Self {
        use rtopk_plan::PlanError as P;
        match e {
            P::TopK(e) => CudaError::TopK(e),
            P::Strategy { strategy, m, max_row } => CudaError::Strategy { strategy, m, max_row },
            P::Split { n, m, k, why } => CudaError::Split { n, m, k, why },
            P::TooLarge { n, m, why } => CudaError::TooLarge { n, m, why },
            P::Wide { elem, why } => CudaError::Wide { elem, why },
        }
    }
}
