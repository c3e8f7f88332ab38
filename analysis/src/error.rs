//! The crate's one error type.

use std::io;
use std::path::PathBuf;

use thiserror::Error;

/// Why an analysis could not run or could not write its results.
#[derive(Debug, Error)]
pub enum AnalysisError {
    /// A row width of zero, or one too wide to simulate.
    #[error("row width m = {m} is out of range: it must be between 1 and {max}")]
    BadWidth {
        /// The width asked for.
        m: usize,
        /// The widest row this crate simulates.
        max: usize,
    },
    /// `k > m` (docs/contract.md §1: an error, never padding).
    #[error("k = {k} is larger than the row width m = {m}")]
    KTooLarge {
        /// The k asked for.
        k: usize,
        /// The row width.
        m: usize,
    },
    /// Zero repetitions: no statistic exists.
    #[error("the number of repetitions must be at least 1")]
    ZeroReps,
    /// Algorithm 1's precision must be a finite number `>= 0`.
    #[error("precision must be a finite number >= 0, got {0}")]
    BadPrecision(f32),
    /// `max_iter` beyond what the statistics store.
    #[error("max_iter = {got} is too large for iteration statistics (at most {max})")]
    MaxIterTooLarge {
        /// The value asked for.
        got: u32,
        /// The largest value accepted.
        max: u32,
    },
    /// E(n) (Appendix A, eq. 4) exists only for `0 < k < M`, `M >= 2`.
    #[error("E(n) of Appendix A needs 0 < k < M and M >= 2 (got M = {m}, k = {k})")]
    ExpectationUndefined {
        /// Row width.
        m: usize,
        /// k.
        k: usize,
    },
    /// An input matrix with no rows.
    #[error("the input has no rows, so there is nothing to measure")]
    NoRows,
    /// A section name given to `reproduce --only` that does not exist.
    #[error("unknown report section '{0}'; valid names: table5, table1, table2, beyond")]
    UnknownSection(String),
    /// A result file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// A figure could not be drawn.
    #[error("cannot draw {}: {message}", path.display())]
    Plot {
        /// The SVG file.
        path: PathBuf,
        /// What plotters said.
        message: String,
    },
    /// A result could not be serialised.
    #[error("cannot serialise results: {0}")]
    Json(#[from] serde_json::Error),
    /// More rows × width than one experiment measures (refused before anything runs).
    #[error(
        "{reps} rows of width m = {m} are more than the {max} values one experiment measures \
         (that many would take hours; the paper's tables use 10^4 to 10^5 rows)"
    )]
    TooManyValues {
        /// Rows asked for.
        reps: usize,
        /// Row width.
        m: usize,
        /// The most values accepted.
        max: u64,
    },
}

impl AnalysisError {
    /// `true` when the error is the caller's input (bad parameters), `false` when it is the
    /// environment (an unwritable directory, ...). Command lines map this to exit code 2 vs 1.
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, Self::Io { .. } | Self::Plot { .. } | Self::Json(_))
    }
}
