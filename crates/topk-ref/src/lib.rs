//! # topk-ref — the canonical row-wise top-k and six CPU algorithms
//!
//! This crate is the workspace's ground truth (SPEC §1):
//!
//! * [`order`] owns the order — NaN above `+inf`, `-0.0 == +0.0`, smallest mode, ties to the
//!   lower index — as integer keys and unique ranks, for the three element types of SPEC §1
//!   ([`Element`]: `f32`, [`f16`](struct@f16), [`bf16`]; each keyed by its exact f32 value, with a key as
//!   wide as the type). No algorithm re-implements it.
//! * [`oracle`] is the plain sort-based definition every algorithm is tested against.
//! * Six single-row algorithms, one file each, each implementing [`RowSelect`] once,
//!   generically over the element type: [`Heap`], [`Quickselect`], [`Radix`], [`Bucket`],
//!   [`Bitonic`] and [`Bisect`] (RTop-K's Algorithms 1 and 2). Every `RowSelect` is a
//!   [`RowTopK`] (the `f32` trait object, `Box<dyn RowTopK>`) and a [`RowTopKOf<E>`] for each
//!   element type (`Box<dyn RowTopKOf<f16>>`; [`registry::by_name_for`]).
//! * [`topk_rows`] runs any of them row-wise over an `ndarray` view with rayon; values come
//!   back in the input's type, bit for bit.
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
pub mod ragged;
pub mod registry;
pub mod select;
#[cfg(test)]
mod test_rows;

pub use algorithm::{
    KeyBuffers, RowSelect, RowStats, RowTopK, RowTopKOf, Scratch, WorkCounters, grow,
};
pub use bisect::{Bisect, BisectOutcome, EpsilonMode};
pub use bitonic::Bitonic;
pub use bucket::Bucket;
pub use driver::{
    MAX_ROW_WIDTH, Options, RowTopKResult, TopK, check_shape, topk_row, topk_rows, topk_rows_into,
    topk_rows_into_counted,
};
pub use error::TopKError;
pub use half::{bf16, f16};
pub use heap::Heap;
pub use inputs::Family;
pub use order::{Element, KeyBits, Mode};
pub use quickselect::Quickselect;
pub use radix::Radix;
pub use ragged::{KPerRow, PAD_INDEX, RaggedTopK, Rows, Wanted, topk_ragged};
pub use registry::{ALGORITHM_NAMES, by_name, by_name_for};
