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
    /// NVRTC rejected the kernel source.
    #[error("NVRTC failed to compile the kernel for {arch}:\n{log}")]
    Compile {
        /// The architecture it was compiled for.
        arch: String,
        /// The compiler's log.
        log: String,
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
