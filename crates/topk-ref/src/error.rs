//! The crate's one error type.

use thiserror::Error;

/// Why a top-k request was refused. Library code returns these instead of panicking on
/// user input.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum TopKError {
    /// `k` is larger than the row width (docs/contract.md §1: an error, never padding).
    #[error("k = {k} is larger than the row width M = {m}")]
    KTooLarge {
        /// Requested k.
        k: usize,
        /// Row width.
        m: usize,
    },
    /// The matrix has rows of width 0 (docs/contract.md §1 needs M ≥ 1).
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
    /// A per-row argument (`lengths`, per-row `k`, `hint`) does not have one entry per row
    /// (docs/contract.md §5).
    #[error("{what} has {got} entries; it needs one per row (N = {n})")]
    PerRowLength {
        /// Which argument.
        what: &'static str,
        /// Entries given.
        got: usize,
        /// Rows of the input.
        n: usize,
    },
    /// A row's length is larger than the row width (docs/contract.md §5: `0 <= lengths[i] <= M`).
    #[error("lengths[{row}] = {length} is larger than the row width M = {m}")]
    LengthTooLarge {
        /// The row.
        row: usize,
        /// Its length.
        length: usize,
        /// Row width.
        m: usize,
    },
    /// A row's own k is larger than the row width (docs/contract.md §5: `0 <= k[i] <= M`, an
    /// error as for a scalar k; a k larger than the row's *length* is not an error).
    #[error("k[{row}] = {k} is larger than the row width M = {m}")]
    RowKTooLarge {
        /// The row.
        row: usize,
        /// Its k.
        k: usize,
        /// Row width.
        m: usize,
    },
    /// The algorithm does not take rows of this element type (a baseline whose paper defines
    /// it for keys of at most 32 bits, given `f64` or `i64` rows).
    #[error(
        "algorithm {algorithm} does not take {element} rows: its keys have {key_bits} bits, it \
         takes keys of at most {max_key_bits} bits"
    )]
    UnsupportedElement {
        /// The algorithm's name.
        algorithm: &'static str,
        /// The element type's name ([`crate::Element::NAME`]).
        element: &'static str,
        /// Bits of the element type's key.
        key_bits: u32,
        /// The widest key the algorithm takes.
        max_key_bits: u32,
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
