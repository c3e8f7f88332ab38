//! # warp-sim — a deterministic 32-lane warp simulator, and the RTop-K kernel on it
//!
//! * [`Warp`] / [`Machine`]: 32 lanes in lockstep with an active mask, [`Lanes`] registers with
//!   poison, CUDA's `ballot_sync`, `shfl*_sync` (with `width`), `any_sync` / `all_sync`,
//!   `popc`, `syncwarp`; blocks of W warps with shared memory and `__syncthreads`
//!   ([`Machine::launch_phased`]); bounds-checked global buffers ([`Global`]).
//! * [`Diagnostic`]s, never panics: bad shuffles (poisoned results), masks that do not match
//!   the executing lanes, barrier divergence, shared and global races (same-value writes
//!   apart), out-of-bounds and uninitialized accesses, poisoned values reaching a branch, an
//!   address or the output, oversized shifts, and order dependence under a seeded schedule
//!   shuffle ([`check_order_dependence`]).
//! * [`kernel`]: the RTop-K kernel of docs/kernel.md (load_row / search_threshold /
//!   select_topk), exact and early stopping, bit-identical to topk-ref's `Bisect`, launched
//!   over matrices by [`Simulator`] and usable row-wise as [`SimTopK`].
//! * [`Mutant`]: seeded bugs of that kernel, and [`mutant::catalog`] showing how each is caught.
//! * [`RowTrace`]: one row's journey as text and SVG.
//!
//! ```
//! use topk_ref::{Bisect, Mode};
//! use warp_sim::{KernelArgs, SimConfig, launch_rtopk};
//!
//! let x = [0.0f32, 5.0, 1.0, 8.0, 2.0];
//! let args = KernelArgs { n: 1, m: 5, k: 2, mode: Mode::Largest, bisect: Bisect::exact(), mutant: None };
//! let r = launch_rtopk(&x, &args, SimConfig::default()).unwrap();
//! assert_eq!((r.indices, r.iterations, r.diagnostics_total), (vec![1, 3], vec![1], 0));
//! ```

#![forbid(unsafe_code)]

pub mod diag;
pub mod error;
pub mod kernel;
pub mod lanes;
pub mod launch;
pub mod memory;
pub mod mutant;
pub mod rowtopk;
pub mod trace;
pub mod warp;

pub use diag::{DiagKind, DiagPolicy, DiagSink, Diagnostic, Op};
pub use error::SimError;
pub use kernel::{KernelArgs, KernelOut, SearchExit};
pub use lanes::{FULL_MASK, Lanes, WARP_SIZE};
pub use launch::{LaunchResult, SimConfig, Simulator, check_order_dependence, launch_rtopk};
pub use memory::{Global, SharedMem};
pub use mutant::Mutant;
pub use rowtopk::SimTopK;
pub use trace::RowTrace;
pub use warp::{Arrive, DEFAULT_KEPT_DIAGNOSTICS, Grid, Machine, Schedule, Warp};
