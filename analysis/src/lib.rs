//! # analysis — E(n), iteration statistics, and the reproduction of RTop-K's tables
//!
//! * [`expectation`]: E(n) of paper 003, Appendix A (eqs. 1–4) and its finite-M correction.
//! * Rows are drawn from the workspace's one input-family enum, [`Family`]
//!   (`topk_ref::inputs`: every row its own seeded stream, so results are reproducible).
//! * [`montecarlo`]: Algorithm 1's iteration counts on many rows, in parallel, reproducibly,
//!   with `topk_ref`'s bisection (the counts *are* the reference counts).
//! * [`early`]: Algorithm 2 (early stopping) against the optimal selection — recall and the
//!   relative errors of Table 2, plus the earlier paper's Algorithm 2 variant.
//! * [`paper`]: the paper's Tables 1, 2 and 5 as data.
//! * [`compare`]: paper vs measured, cell by cell, with a stated statistical tolerance.
//! * [`report`]: `rtopk reproduce` — runs everything and writes Markdown, CSV, JSON and SVG.

#![forbid(unsafe_code)]

pub mod compare;
pub mod early;
pub mod error;
pub mod expectation;
pub mod montecarlo;
pub mod paper;
pub mod plots;
pub mod report;

pub use error::AnalysisError;
pub use montecarlo::{Convention, IterationCounter, IterationStats, RowSource, SimSpec, simulate};
pub use topk_ref::inputs::Family;
