//! The crate's one error type.

use std::io;
use std::path::PathBuf;

use thiserror::Error as ThisError;

/// Why a request failed. [`Error::is_user_error`] tells the caller's input or arguments (a
/// command line exits 2, Python raises `ValueError`/`TypeError`) from the environment (exit 1:
/// disk full, permission denied, no GPU).
#[derive(Debug, ThisError)]
pub enum Error {
    /// The request itself is invalid (k > M, M = 0, a bad parameter, a size too large).
    #[error(transparent)]
    TopK(#[from] topk_ref::TopKError),
    /// The GPU path failed (no driver, compilation, launch) or refused the request.
    #[error(transparent)]
    Cuda(#[from] rtopk_cuda::CudaError),
    /// The warp simulator refused or stopped a launch.
    #[error(transparent)]
    Sim(#[from] warp_sim::SimError),
    /// A baseline could not be configured.
    #[error(transparent)]
    Baseline(#[from] baselines::BaselineError),
    /// An analysis (statistics, report) failed.
    #[error(transparent)]
    Analysis(#[from] analysis::AnalysisError),
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
}

impl Error {
    /// `true` when the error is the caller's input or arguments, `false` when the environment
    /// failed.
    pub fn is_user_error(&self) -> bool {
        match self {
            Error::TopK(_) | Error::Baseline(_) => true,
            Error::Cuda(e) => matches!(e, rtopk_cuda::CudaError::TopK(_)),
            Error::Sim(e) => matches!(e, warp_sim::SimError::TopK(_) | warp_sim::SimError::InvalidLaunch(_)),
            Error::Analysis(e) => e.is_bad_input(),
            Error::Io { .. } => false,
        }
    }
}
