//! # topk-ref — the canonical row-wise top-k and six CPU algorithms
//!
//! This crate is the workspace's ground truth (SPEC §1):
//!
//! * [`order`] owns the order — NaN above `+inf`, `-0.0 == +0.0`, smallest mode, ties to the
//!   lower index — as integer keys and unique ranks. No algorithm re-implements it.
//! * [`oracle`] is the plain sort-based definition every algorithm is tested against.
//! * Six single-row algorithms, one file each, all implementing [`RowTopK`]:
//!   [`Heap`], [`Quickselect`], [`Radix`], [`Bucket`], [`Bitonic`] and [`Bisect`]
//!   (RTop-K's Algorithms 1 and 2).
//! * [`topk_rows`] runs any of them row-wise over an `ndarray` view with rayon.
//!
//! ```
//! use ndarray::array;
//! use topk_ref::{Bisect, Options, topk_rows};
//!
//! let x = array![[0.5f32, 3.0, f32::NAN, 3.0], [1.0, -0.0, 0.0, -2.0]];
//! let out = topk_rows(&Bisect::exact(), x.view(), 2, Options::default()).unwrap();
//! assert_eq!(out.indices, array![[1, 2], [0, 1]]);
//! ```

#![forbid(unsafe_code)]

pub mod algorithm;
pub mod bisect;
pub mod bitonic;
pub mod bucket;
pub mod driver;
pub mod error;
pub mod heap;
pub mod inputs;
pub mod oracle;
pub mod order;
pub mod quickselect;
pub mod radix;
pub mod registry;
pub mod select;
#[cfg(test)]
mod test_rows;

pub use algorithm::{RowStats, RowTopK, Scratch, WorkCounters, grow};
pub use bisect::{Bisect, BisectOutcome, EpsilonMode};
pub use bitonic::Bitonic;
pub use bucket::Bucket;
pub use driver::{
    MAX_ROW_WIDTH, Options, RowTopKResult, TopK, check_shape, topk_row, topk_rows, topk_rows_into,
    topk_rows_into_counted,
};
pub use error::TopKError;
pub use heap::Heap;
pub use inputs::Family;
pub use order::Mode;
pub use quickselect::Quickselect;
pub use radix::Radix;
pub use registry::{ALGORITHM_NAMES, by_name};
