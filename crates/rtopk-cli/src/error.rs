//! The command line's one error type and its exit codes (docs/contract.md §4): 2 when the caller's input or
//! arguments are wrong (sizes too large to allocate included), 1 when the environment fails
//! (disk full, permission denied, no GPU driver, a wrong answer found by a self-check, a JSON
//! encoding failure). Library errors convert with `#[from]` and keep their classification
//! ([`rtopk::Error::is_user_error`]).

use std::io;
use std::path::PathBuf;

use rtopk::TopKError;
use rtopk::stats::AnalysisError;
use thiserror::Error;

/// Exit code for bad arguments or bad input (the same code clap uses for usage errors).
pub(crate) const EXIT_BAD_INPUT: u8 = 2;
/// Exit code for failures of the environment: unwritable outputs, no GPU, wrong answers.
pub(crate) const EXIT_FAILURE: u8 = 1;

/// Why a command failed. The `Display` text is the message printed after `error: `.
#[derive(Debug, Error)]
pub(crate) enum CliError {
    /// Any other bad argument.
    #[error("{0}")]
    BadArgument(String),
    /// `k` does not fit the input's shape (k > M, M = 0).
    #[error("{}: shape {shape}: {source}", path.display())]
    Shape {
        /// The input file.
        path: PathBuf,
        /// Its shape, in Python notation.
        shape: String,
        /// What the library said.
        #[source]
        source: TopKError,
    },
    /// The reference library refused the request (a bad precision, a size too large, ...).
    #[error(transparent)]
    TopK(#[from] TopKError),
    /// The library failed: input files, output paths, algorithms; classified by the library.
    #[error(transparent)]
    Lib(#[from] rtopk::Error),
    /// A tool failed: input files, output paths, reports, benchmarks; classified by the tools.
    #[error(transparent)]
    Tools(#[from] rtopk_tools::Error),
    /// The GPU path failed (no driver, compilation, launch) or refused the request.
    #[error(transparent)]
    Cuda(#[from] rtopk::cuda::CudaError),
    /// The live GPU could not be used where the command could have gone without it: the GPU's
    /// error, classified as such, and what to pass instead.
    #[error("{source}; {instead}")]
    NoDevice {
        /// Why the GPU could not be used.
        #[source]
        source: rtopk::cuda::CudaError,
        /// The arguments that need no GPU.
        instead: String,
    },
    /// A file or directory could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Output {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// An algorithm gave a wrong answer (found by a self-check).
    #[error("{0}")]
    WrongAnswer(String),
    /// A report could not be encoded as JSON.
    #[error("cannot encode JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// Analysis errors go through the library's error, which decides user vs environment.
impl From<AnalysisError> for CliError {
    fn from(e: AnalysisError) -> Self {
        CliError::Lib(e.into())
    }
}

impl CliError {
    /// The process exit code for this error: 2 for the caller's arguments or input, 1 for the
    /// environment.
    pub(crate) fn exit_code(&self) -> u8 {
        let user = match self {
            CliError::BadArgument(_) | CliError::Shape { .. } | CliError::TopK(_) => true,
            CliError::Lib(e) => e.is_user_error(),
            CliError::Tools(e) => e.is_user_error(),
            CliError::Cuda(e) | CliError::NoDevice { source: e, .. } => {
                matches!(
                    e,
                    rtopk::cuda::CudaError::TopK(_)
                        | rtopk::cuda::CudaError::Wide { .. }
                        | rtopk::cuda::CudaError::Arch { .. }
                )
            }
            CliError::Output { .. } | CliError::WrongAnswer(_) | CliError::Json(_) => false,
        };
        if user { EXIT_BAD_INPUT } else { EXIT_FAILURE }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_policy_for_every_kind_of_error() {
        let too_large = TopKError::TooLarge { what: "x", n: 1, m: 1 };
        assert_eq!(CliError::from(too_large).exit_code(), EXIT_BAD_INPUT);
        assert_eq!(CliError::from(AnalysisError::ZeroReps).exit_code(), EXIT_BAD_INPUT);
        let io = AnalysisError::Io { path: ".".into(), source: io::Error::other("disk full") };
        assert_eq!(CliError::from(io).exit_code(), EXIT_FAILURE);
        let write =
            rtopk_tools::Error::Write { path: "v".into(), source: io::Error::other("full") };
        assert_eq!(CliError::from(write).exit_code(), EXIT_FAILURE);
        let json = serde_json::from_str::<u8>("x").unwrap_err();
        assert_eq!(CliError::from(json).exit_code(), EXIT_FAILURE);
        assert_eq!(CliError::from(rtopk::cuda::CudaError::NoDriver).exit_code(), EXIT_FAILURE);
        let instead = "name a GPU".to_string();
        let no_device = CliError::NoDevice { source: rtopk::cuda::CudaError::NoDriver, instead };
        assert_eq!(no_device.exit_code(), EXIT_FAILURE);
    }
}
