//! # rtopk — row-wise top-k selection, the library face of the workspace
//!
//! The crate a Rust user depends on, and the one the `rtopk` command line and the Python
//! package are thin faces over:
//!
//!
//! The engines live in their own crates: `topk_ref` (the order, the oracle, six CPU
//! algorithms), `baselines` (the seed papers' competitors), `warp_sim` (the 32-lane simulator
//! and the RTop-K kernel on it), `rtopk_cuda` (the CUDA kernel) and `analysis` (iteration
//! statistics, the paper's tables).

#![forbid(unsafe_code)]

pub mod error;

pub use error::Error;
pub use topk_ref::{Bisect, Family, Mode, Options, TopK};
