//! The crate's one error type.

use thiserror::Error as ThisError;

use crate::dtype::Dtype;

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
    /// An algorithm name that docs/contract.md §4 does not define.
    #[error("unknown algorithm '{name}'; valid names: {valid}")]
    UnknownAlgorithm {
        /// The name given.
        name: String,
        /// Every valid name, as one list.
        valid: String,
    },
    /// A parameter given to an algorithm that does not take it.
    #[error("{param} is only valid for {valid_for}, not for '{algo}'")]
    ParamNotSupported {
        /// The parameter.
        param: crate::param::Param,
        /// The algorithm it was given to.
        algo: String,
        /// The algorithms that take it.
        valid_for: String,
    },
    /// A matrix of an element type the algorithm does not take (yet): never converted.
    #[error(
        "'{algo}' does not take {dtype} input; use an algorithm that takes {dtype}: {valid_for} \
         (or convert the input explicitly)"
    )]
    DtypeNotSupported {
        /// The input's element type.
        dtype: Dtype,
        /// The algorithm.
        algo: String,
        /// The algorithms that take it.
        valid_for: String,
    },
    /// `max_iter` and `precision` together: early stopping (Algorithm 2) has no precision.
    #[error(
        "--max-iter (max_iter: early stopping, Algorithm 2) and --precision (precision: \
         Algorithm 1) cannot be combined; give at most one of them"
    )]
    ConflictingParams,
    /// A recall target together with `max_iter` or `precision`: the recall rule chooses how
    /// far to search (docs/contract.md §6), so it takes neither.
    #[error(
        "--recall (recall: a recall target) and {other} cannot be combined: the recall target \
         chooses how far the search goes; give --recall alone"
    )]
    RecallConflict {
        /// The other parameter given (`max_iter` or `precision`).
        other: crate::param::Param,
    },
    /// A recall target outside (0, 1], quoted as the caller gave it.
    #[error("recall {given} is out of range: it must be a number r with 0 < r <= 1 (1 is exact)")]
    BadRecall {
        /// The value as typed (or as given from Python).
        given: String,
    },
    /// A precision that is not a finite number >= 0 in f32, quoted as the caller gave it.
    #[error(
        "precision {given} is out of range: it must be a finite number >= 0 and at most {max:e} \
         (the largest float32)",
        max = f32::MAX
    )]
    BadPrecision {
        /// The value as typed (or as given from Python).
        given: String,
    },
    /// A request that wants no output at all.
    #[error("nothing to compute: ask for at least one of values, indices, iterations, threshold")]
    NothingWanted,
    /// An input or output of the request that the algorithm does not honour yet.
    #[error("'{algo}' does not support {what} yet; algorithms that do: {valid_for}")]
    NotYetSupported {
        /// What was asked.
        what: &'static str,
        /// The algorithm.
        algo: String,
        /// The algorithms that honour it.
        valid_for: String,
    },
    /// A per-row input without one entry per row.
    #[error("{what} has {len} entries for {n} rows; give one per row")]
    PerRowLength {
        /// The input (`lengths`, `hint`, `k`).
        what: &'static str,
        /// Its entries.
        len: usize,
        /// The rows.
        n: usize,
    },
    /// A row length longer than the rows.
    #[error("lengths[{row}] = {length} is more than the row width M = {m}")]
    LengthTooLong {
        /// The row.
        row: usize,
        /// Its length.
        length: usize,
        /// The row width.
        m: usize,
    },
    /// 32-bit indices for rows too long for them.
    #[error("int32 indices cannot index rows of M = {m} > 2^31 values; use int64")]
    IndexesTooNarrow {
        /// The row width.
        m: usize,
    },
    /// An index width other than 32 or 64 bits.
    #[error("index_bits must be 32 or 64, got {bits}")]
    BadIndexWidth {
        /// The width given.
        bits: u32,
    },
    /// A device buffer for iteration counts given without asking for them, or the reverse.
    #[error(
        "the iteration-count buffer must be given exactly when iteration counts are asked for \
         (asked: {wanted})"
    )]
    RawIterations {
        /// Whether the request asks for them.
        wanted: bool,
    },
    /// A null device address for the input, the values or the indices.
    #[error("a device buffer (input, values or indices) is a null address")]
    NullBuffer,
    /// A null device address for the entries or the words of a per-row conversion
    /// (`cuda::per_row_words_raw`).
    #[error("a per-row array's device buffer (entries or words) is a null address")]
    NullPerRowBuffer,
    /// An algorithm asked to run where it cannot (e.g. `cuda` in the CPU benchmark).
    #[error("'{algo}' does not run here: {why}")]
    WrongDevice {
        /// The algorithm.
        algo: String,
        /// What runs here instead.
        why: String,
    },
    /// A report could not be encoded or decoded as JSON.
    #[error("JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The launch program could not be made for the shape (sizes past the kernels' limits).
    #[error(transparent)]
    Plan(#[from] rtopk_plan::PlanError),
    /// A GPU name the plan has no limits for.
    #[error("no limits known for the GPU '{name}'; known: {known}")]
    UnknownGpu {
        /// The name given.
        name: String,
        /// The names known.
        known: String,
    },
}

impl Error {
    /// `true` when the error is the caller's input or arguments, `false` when the environment
    /// failed.
    pub fn is_user_error(&self) -> bool {
        match self {
            Error::TopK(_) | Error::Baseline(_) => true,
            // a request the GPU's plan does not take (64-bit rows with a forced strategy)
            Error::Cuda(e) => {
                matches!(
                    e,
                    rtopk_cuda::CudaError::TopK(_)
                        | rtopk_cuda::CudaError::Wide { .. }
                        | rtopk_cuda::CudaError::Arch { .. }
                )
            }
            Error::Sim(e) => {
                matches!(e, warp_sim::SimError::TopK(_) | warp_sim::SimError::InvalidLaunch(_))
            }
            Error::Analysis(e) => e.is_bad_input(),
            Error::UnknownAlgorithm { .. }
            | Error::ParamNotSupported { .. }
            | Error::DtypeNotSupported { .. }
            | Error::ConflictingParams
            | Error::BadPrecision { .. }
            | Error::RecallConflict { .. }
            | Error::BadRecall { .. }
            | Error::WrongDevice { .. }
            | Error::NothingWanted
            | Error::NotYetSupported { .. }
            | Error::PerRowLength { .. }
            | Error::LengthTooLong { .. }
            | Error::IndexesTooNarrow { .. }
            | Error::BadIndexWidth { .. }
            | Error::RawIterations { .. }
            | Error::NullBuffer
            | Error::NullPerRowBuffer
            | Error::Plan(_)
            | Error::UnknownGpu { .. } => true,
            Error::Json(_) => false,
        }
    }
}
