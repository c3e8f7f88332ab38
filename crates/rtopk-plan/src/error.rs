//! The crate's one error type.

use thiserror::Error;

use crate::strategy::Strategy;

/// Why a launch cannot be planned.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum PlanError {
    /// The request itself is invalid (k > M, M = 0, a bad parameter).
    #[error(transparent)]
    TopK(#[from] topk_ref::TopKError),
    /// A forced launch strategy cannot hold the row.
    #[error(
        "strategy {strategy} holds rows of at most {max_row} elements; M = {m} needs another (auto picks one)"
    )]
    Strategy {
        /// The strategy asked for.
        strategy: Strategy,
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
    /// A 64-bit request the wide rows (crate::wide) do not take.
    #[error("{elem} rows on the GPU: {why}")]
    Wide {
        /// The element type's name.
        elem: &'static str,
        /// Why not.
        why: &'static str,
    },
    /// The shape does not fit the kernels' index types or the grid's limits.
    #[error("shape ({n}, {m}) is too large: {why}")]
    TooLarge {
        /// Rows.
        n: usize,
        /// Row width.
        m: usize,
        /// Which limit it exceeds.
        why: &'static str,
    },
}
