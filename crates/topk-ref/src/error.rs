//! The crate's one error type.

use thiserror::Error;

/// Why a top-k request was refused. Library code returns these instead of panicking on
/// user input.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum TopKError {
    /// `k` is larger than the row width (SPEC §1: an error, never padding).
    #[error("k = {k} is larger than the row width M = {m}")]
    KTooLarge {
        /// Requested k.
        k: usize,
        /// Row width.
        m: usize,
    },
    /// The matrix has rows of width 0 (SPEC §1 needs M ≥ 1).
    #[error("rows have width M = 0; every row needs at least one value")]
    EmptyRows,
    /// Indices are reported as `u32`; wider rows cannot be indexed.
    #[error("row width M = {m} is larger than the supported maximum {max}")]
    RowTooWide {
        /// Row width.
        m: usize,
        /// Largest supported width.
        max: usize,
    },
    /// A size whose data cannot be allocated (or whose byte count overflows): refused before
    /// anything is allocated, never an abort.
    #[error("{what} of shape ({n}, {m}) is too large to allocate")]
    TooLarge {
        /// What was to be allocated.
        what: &'static str,
        /// Rows.
        n: usize,
        /// Row width.
        m: usize,
    },
    /// A parameter (precision, iteration limit, ...) is out of its domain.
    #[error("invalid parameter {name}: {reason}")]
    InvalidParameter {
        /// The parameter's name.
        name: &'static str,
        /// What is wrong with it.
        reason: String,
    },
}
