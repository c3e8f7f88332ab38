//! The crate's one error type.

use thiserror::Error;
use topk_ref::TopKError;

use crate::diag::Diagnostic;

/// Why a simulated launch stopped. Diagnostics are values ([`Diagnostic`]); they become an
/// error only under [`crate::DiagPolicy::FailFast`].
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SimError {
    /// The first diagnostic of a launch run with [`crate::DiagPolicy::FailFast`].
    #[error("fatal diagnostic: {0}")]
    Fatal(Box<Diagnostic>),
    /// A warp executed more simulated operations than its budget: a kernel that does not
    /// terminate (only a mutated kernel can get here; the bisection is bounded).
    #[error("watchdog: warp {warp} of block {block} exceeded {limit} simulated operations")]
    Watchdog {
        /// Block index.
        block: u32,
        /// Warp index in the block.
        warp: u32,
        /// The operation budget.
        limit: u64,
    },
    /// The launch parameters are inconsistent (data length, warps per block, ...).
    #[error("invalid launch: {0}")]
    InvalidLaunch(String),
    /// The top-k request itself is invalid (k > M, M = 0, bad precision, ...).
    #[error(transparent)]
    TopK(#[from] TopKError),
}
