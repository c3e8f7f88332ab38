//! The crate's one error type (both rooms use it: the engine and the RTop-K kernel on it).

use thiserror::Error;
use topk_ref::TopKError;

use crate::engine::diag::Diagnostic;

/// Why a simulated launch stopped, or a request was refused. Diagnostics are values
/// ([`Diagnostic`]); they become an error only under
/// [`crate::engine::diag::DiagPolicy::FailFast`].
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SimError {
    /// The first diagnostic of a launch run with [`crate::engine::diag::DiagPolicy::FailFast`].
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
    /// The launch parameters are inconsistent (data length, warps per block, ...) or ask for
    /// more simulated memory than can be allocated.
    #[error("invalid launch: {0}")]
    InvalidLaunch(String),
    /// The top-k request itself is invalid (k > M, M = 0, bad precision, a size too large to
    /// allocate, ...).
    #[error(transparent)]
    TopK(#[from] TopKError),
    /// A picture of a run (the teaching trace's SVG) could not be drawn.
    #[error("drawing failed: {0}")]
    Draw(String),
}
