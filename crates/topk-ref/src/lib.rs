//! # topk-ref — the canonical row-wise top-k and six CPU algorithms
//!
//! This crate is the workspace's ground truth (docs/contract.md §1):
//!
//! * [`order`] owns the order — NaN above `+inf`, `-0.0 == +0.0`, smallest mode, ties to the
//!   lower index — as integer keys and unique ranks, for the element types of docs/contract.md §1
//!   ([`Element`]: `f32`, [`f16`](struct@f16), [`bf16`], `f64`, `i8`, `u8`, `i16`, `i32`,
//!   `i64`; each with a key as wide as the type). No algorithm re-implements it.
//! * [`oracle`] is the plain sort-based definition every algorithm is tested against.
//! * Six single-row algorithms, one file each, each implementing [`RowSelect`] once,
//!   generically over the element type: [`Heap`], [`Quickselect`], [`Radix`], [`Bucket`],
//!   [`Bitonic`] and [`Bisect`] (RTop-K's Algorithms 1 and 2). Every `RowSelect` is a
//!   [`RowTopK`] (the `f32` trait object, `Box<dyn RowTopK>`) and a [`RowTopKOf<E>`] for each
//!   element type (`Box<dyn RowTopKOf<f16>>`; [`registry::by_name_for`]).
//! * [`topk_rows`] runs any of them row-wise over an `ndarray` view with rayon; values come
//!   back in the input's type, bit for bit.
//!
//! * [`topk_ragged`] (module [`ragged`]) is the same driver for ragged requests
//!   (docs/contract.md §5), described by [`Rows`]: per-row `lengths` (row i is its first
//!   `lengths[i]` values; nothing past it is read), `k` one value or one per row
//!   ([`KPerRow`]), and optional threshold `hint`s. Outputs are `(N, K)`, `K = max k[i]`;
//!   row i holds its canonical top-`min(k[i], lengths[i])`, then padding: index
//!   [`PAD_INDEX`] (`u32::MAX`; the `int64` faces — command line, Python — write it as `-1`)
//!   and value zero (all bits zero) in the input's type. [`Wanted`] asks for per-row
//!   iteration counts (0 for a row that selects nothing) and thresholds (each row's k-th
//!   selected value as `f32`, read off the selection — rounded to the nearest `f32`, ties to
//!   even, on `i32`, `i64` and `f64` rows; NaN for a row that selects nothing).
//!   Every algorithm takes it: each sees the plain slice `&row[..lengths[i]]` with its k. A
//!   hint reaches [`RowTopKOf::select_row_hinted`]; only [`Bisect`] (exact mode) uses it
//!   (module [`bisect`], "Hints"), and no hint ever changes an answer.
//!   [`oracle::canonical_ragged`] is the ragged answer by definition.
//!
//! ```
//! use ndarray::array;
//! use topk_ref::{Bisect, Options, topk_rows};
//!
//! let x = array![[0.5f32, 3.0, f32::NAN, 3.0], [1.0, -0.0, 0.0, -2.0]];
//! let out = topk_rows(&Bisect::exact(), x.view(), 2, Options::default()).unwrap();
//! assert_eq!(out.indices, array![[1, 2], [0, 1]]);
//!
//! // The same rows in f16: the same answer, values in f16.
//! let h = x.mapv(topk_ref::f16::from_f32);
//! let out = topk_rows(&Bisect::exact(), h.view(), 2, Options::default()).unwrap();
//! assert_eq!(out.indices, array![[1, 2], [0, 1]]);
//! assert_eq!(out.values[[1, 1]].to_bits(), 0x8000); // -0.0 kept
//!
//! // An i32 matrix: the same call, values in i32.
//! let n = array![[7i32, i32::MIN, 7, -1], [0, 3, i32::MAX, 3]];
//! let out = topk_rows(&Bisect::exact(), n.view(), 2, Options::default()).unwrap();
//! assert_eq!(out.indices, array![[0, 2], [1, 2]]);
//! assert_eq!(out.values, array![[7, 7], [3, i32::MAX]]);
//! ```
//!
//! A ragged request: row 0 is its first 3 values and selects 2, row 1 is its first 1 value
//! and asks 2 (it selects 1, then pads); the hint of row 0 is its threshold from a previous
//! call.
//!
//! ```
//! use ndarray::array;
//! use topk_ref::{Bisect, Options, PAD_INDEX, Rows, Wanted, topk_ragged};
//!
//! let x = array![[0.5f32, 3.0, 2.0, f32::NAN], [1.0, 9.0, 9.0, 9.0]];
//! let rows = Rows::per_row_k(&[2, 2]).with_lengths(&[3, 1]).with_hint(&[2.0, f32::NAN]);
//! let want = Wanted { iterations: true, threshold: true };
//! let out = topk_ragged(&Bisect::exact(), x.view(), &rows, Options::default(), want).unwrap();
//! assert_eq!(out.indices, array![[1, 2], [0, PAD_INDEX]]);
//! assert_eq!(out.values, array![[3.0, 2.0], [1.0, 0.0]]);
//! assert_eq!(out.threshold.unwrap(), array![2.0, 1.0]);
//! assert_eq!(out.iterations.unwrap(), array![1, 0]); // the hint test found the threshold
//! ```

#![forbid(unsafe_code)]

pub mod algorithm;
pub mod bisect;
pub mod bitonic;
pub mod bucket;
pub mod driver;
pub mod error;
pub mod grouped;
pub mod heap;
pub mod inputs;
pub mod oracle;
pub mod order;
pub mod quickselect;
pub mod radix;
pub mod ragged;
pub mod registry;
pub mod select;
#[cfg(test)]
mod test_rows;

pub use algorithm::{KeyBuffers, RowStats, Scratch, WorkCounters, grow};
pub use bisect::{Bisect, BisectOutcome, EpsilonMode};
pub use bitonic::Bitonic;
pub use bucket::Bucket;
pub use driver::{
    MAX_ROW_WIDTH, Options, RowTopKResult, TopK, check_element, check_shape, topk_row, topk_rows,
    topk_rows_into, topk_rows_into_counted,
};
pub use error::TopKError;
pub use grouped::{GroupScore, Grouped, grouped_topk};
pub use half::{bf16, f16};
pub use heap::Heap;
pub use inputs::Family;
pub use order::{
    Element, KeyBits, Mode, NoValue, OrderedValue, RankBits, RankOf, RowSelect, RowTopK, RowTopKOf,
};
pub use quickselect::Quickselect;
pub use radix::Radix;
pub use ragged::{KPerRow, PAD_INDEX, RaggedTopK, Rows, Wanted, topk_ragged};
pub use registry::{ALGORITHM_NAMES, by_name, by_name_for};
