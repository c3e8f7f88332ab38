//! The command line's one error type and its exit codes (SPEC §4: 2 for bad arguments or bad
//! input, 1 for everything else).

use std::io;
use std::path::PathBuf;

use thiserror::Error;
use topk_ref::TopKError;

use crate::npy_io::InputError;

/// Exit code for bad arguments or bad input (the same code clap uses for usage errors).
pub(crate) const EXIT_BAD_INPUT: u8 = 2;
/// Exit code for failures that are not the caller's input: unwritable outputs, wrong answers.
pub(crate) const EXIT_FAILURE: u8 = 1;

/// Why a command failed. The `Display` text is the message printed after `error: `.
#[derive(Debug, Error)]
pub(crate) enum CliError {
    /// `--algo` names no algorithm of SPEC §4.
    #[error("unknown algorithm '{name}'; valid names: {valid}")]
    UnknownAlgorithm {
        /// The name given.
        name: String,
        /// The names that work, and the planned ones, as one readable list.
        valid: String,
    },
    /// A SPEC §4 algorithm that this build does not contain yet.
    #[error("algorithm '{0}' is not available in this build yet")]
    NotAvailable(String),
    /// An option given to an algorithm that does not take it.
    #[error("{option} is only valid for {valid_for}, not for '{algo}'")]
    OptionNotSupported {
        /// The option, e.g. `--max-iter`.
        option: &'static str,
        /// The algorithm it was given with.
        algo: String,
        /// The algorithms that take it.
        valid_for: String,
    },
    /// Any other bad argument.
    #[error("{0}")]
    BadArgument(String),
    /// The input file is not what SPEC §4 accepts.
    #[error("{}: {source}", path.display())]
    Input {
        /// The input file.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        source: InputError,
    },
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
    /// The library refused the request (a bad precision, ...).
    #[error(transparent)]
    TopK(#[from] TopKError),
    /// An output file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Output {
        /// The output file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// The GPU path failed (no driver, compilation, launch) or refused the request.
    #[error(transparent)]
    Cuda(#[from] rtopk_cuda::CudaError),
    /// An algorithm gave a wrong answer (found by `bench`'s cross-check).
    #[error("{0}")]
    WrongAnswer(String),
}

impl CliError {
    /// The process exit code for this error: 2 for the caller's arguments or input, 1 otherwise.
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            CliError::UnknownAlgorithm { .. }
            | CliError::NotAvailable(_)
            | CliError::OptionNotSupported { .. }
            | CliError::BadArgument(_)
            | CliError::Input { .. }
            | CliError::Shape { .. }
            | CliError::TopK(_) => EXIT_BAD_INPUT,
            CliError::Cuda(rtopk_cuda::CudaError::TopK(_)) => EXIT_BAD_INPUT,
            CliError::Output { .. } | CliError::WrongAnswer(_) | CliError::Cuda(_) => EXIT_FAILURE,
        }
    }
}
