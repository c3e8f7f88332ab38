//! # rtopk — row-wise top-k selection, the one door of the workspace
//!
//! The crate a Rust user depends on, and the one the `rtopk` command line and the Python
//! package are thin faces over: a face parses and prints, and calls this crate; it names no
//! engine crate (topk-ref, baselines, warp-sim, rtopk-plan, rtopk-cuda, analysis).
//!
//! ## API note (for the faces)
//!
//! * [`Request`] — everything one selection is asked, built with [`Request::builder`] and
//!   checked once by [`RequestBuilder::build`] (typed [`Error`]s): the algorithm (a registry
//!   name or `auto`: `bisect` on the CPU, `cuda` on a GPU), `k` ([`K`]), largest/smallest,
//!   sorted, the outputs wanted ([`Wanted`]: values, indices, iteration counts, threshold),
//!   the search (`max_iter` or `precision`, docs/contract.md §2; or a `recall` target,
//!   docs/contract.md §6, [`Recall`]: exact search stopped once every row's recall is at
//!   least the target — `bisect`, `sim` and `cuda` take it), the index width
//!   ([`IndexWidth`]), where the rows are ([`Place`]), and the ragged inputs of
//!   docs/contract.md §5: per-row `lengths`, a k per row ([`K::PerRow`],
//!   [`RequestBuilder::k_per_row`]) and threshold `hint`s. [`Request::check`] checks it
//!   against `(n, m, dtype)`.
//! * Ragged requests ([`Request::is_ragged`]) run on every CPU algorithm and baseline
//!   (topk-ref's ragged driver; only `bisect` uses hints, and no hint changes an answer). The
//!   outputs are `(N, K)`, `K` = the largest `k[i]`, a row that selects fewer ending in
//!   padding: index [`PAD_INDEX`] (`u32::MAX`; the int64 faces write `-1`) and value zero
//!   (all bits zero). `sim` and `cuda` run them in the kernel (its ragged units, for every
//!   element type: the 64-bit wide rows too), hints included. The threshold output
//!   ([`Wanted::threshold`], [`Selection::threshold`]: each row's k-th selected value as
//!   `f32`, NaN where nothing is selected) is given by every algorithm on host rows — read off
//!   the selection on the plain path — and written by the kernel on device buffers
//!   ([`cuda::select_raw`]).
//! * [`select`]`(x, &request)` — host rows of any element type ([`Value`]: `f32`, `f16`,
//!   `bf16`, `f64`, `i8`, `u8`, `i16`, `i32`, `i64`) in, a [`Selection`] of that type out. Iteration counts are computed only when the request asks for them:
//!   without them `cuda` and `sim` take the route that splits long rows, as `rtopk.topk` does.
//!   [`select_into`] reuses the output buffers (the CLI's block loop).
//! * [`grouped`] — grouped selection (docs/contract.md §8): [`grouped::select_grouped`] on
//!   host rows (`auto`/`reference`, `sim`, `cuda`) and [`grouped::grouped_raw`] on device
//!   buffers, the mixture-of-experts router's two-stage top-k.
//! * [`cuda`] — device buffers a framework owns: [`cuda::select_raw`] (`unsafe`: raw
//!   addresses on the caller's stream), [`cuda::is_ready`], [`cuda::prepare`]; the GPU's
//!   errors and [`cuda::check_libraries`].
//! * [`sim`] — the warp simulator's API for the faces (runs, mutants, traces), re-exported;
//!   [`stats`] — the analysis crate's E(n) and statistics, re-exported.
//! * [`registry`] — the table of algorithms ([`registry::ALGORITHMS`]) and
//!   [`registry::resolve`], for callers that keep an [`Algorithm`] (benchmarks).
//! * Outside the door, in rtopk-tools: `.npy` I/O, the CPU and GPU benchmark harnesses, the
//!   GPU kernel's verification against the CPU and the simulator, iteration statistics of
//!   generated rows or files (`rtopk_tools::stats`), charts and progress bars.
//!
//! A face on CUDA tensors: `let r = Request::builder(algo).k(k).place(Place::Cuda(dev))
//! .iterations(want).index_width(w).build()?`, then `cuda::is_ready(&r, shape)?` (else
//! `cuda::prepare` with the interpreter released) and `unsafe { cuda::select_raw(&r, shape,
//! bufs, stream) }` with the tensors' addresses (`bufs.iterations` 0 unless `want`).
//!
//! ```
//! use ndarray::array;
//! use rtopk::{Request, select};
//!
//! let x = array![[0.5f32, 3.0, f32::NAN, 3.0], [1.0, -0.0, 0.0, -2.0]];
//! let request = Request::builder("bisect").k(2).iterations(true).build().unwrap();
//! let out = select(x.view(), &request).unwrap();
//! assert_eq!(out.topk.indices, array![[1, 2], [0, 1]]);
//! assert_eq!(out.topk.iterations.unwrap().len(), 2);
//!
//! // The same rows in f16 (or bf16): the same indices, values in the input's type.
//! let h = x.mapv(rtopk::f16::from_f32);
//! let out = select(h.view(), &Request::new("radix", 2).unwrap()).unwrap();
//! assert_eq!(out.topk.indices, array![[1, 2], [0, 1]]);
//! assert_eq!(out.topk.values[[1, 1]].to_bits(), 0x8000); // -0.0, the input's bits
//! assert!(out.topk.iterations.is_none()); // not asked for
//! let sim = select(h.view(), &Request::new("sim", 2).unwrap()).unwrap();
//! assert_eq!(sim.topk.indices, out.topk.indices); // the kernel, simulated on f16 rows
//!
//! // Ragged: row 0 is its first 3 values and selects 2; row 1 is its first value and asks
//! // 2, so it selects 1 and pads. The hint (a previous call's threshold) changes no answer.
//! let request = Request::builder("bisect")
//!     .k_per_row(vec![2, 2])
//!     .lengths(vec![3, 1])
//!     .hint(vec![0.5, f32::NAN])
//!     .threshold(true)
//!     .build()
//!     .unwrap();
//! let out = select(x.view(), &request).unwrap();
//! assert_eq!(out.topk.indices, array![[1, 2], [0, rtopk::PAD_INDEX]]);
//! assert_eq!(out.threshold.unwrap()[1], 1.0);
//! ```
//!
//! Element types ([`Dtype`], [`Value`]): `f32`, `f16`, `bf16`, `f64`, `i8`, `u8`, `i16`,
//! `i32` and `i64` (docs/contract.md §1: floats ordered by their exact values, NaN above
//! `+inf`, `-0.0 = +0.0`; integers in their usual order; values returned as the input's own
//! bits, in its type). Every CPU algorithm takes them all, but the baselines defined for
//! 32-bit keys (`air`, `gridselect`, `warpselect`, `drtopk`, `sort`) refuse `f64` and `i64`;
//! the kernel (`sim`, `cuda`) takes every type ([`KernelElement`]; `f64` and `i64` on its
//! 64-bit wide rows, ragged requests and thresholds included). A type an algorithm does not
//! take is refused with [`Error::DtypeNotSupported`], which names those that take it:
//!
//! ```
//! use ndarray::array;
//! use rtopk::{Request, select};
//!
//! let x = array![[i32::MIN, 7, -1, 7, i32::MAX]];
//! let out = select(x.view(), &Request::builder("sim").k(3).sorted(true).build().unwrap());
//! assert_eq!(out.unwrap().topk.values, array![[i32::MAX, 7, 7]]);
//! let wide = x.mapv(|v| i64::from(v) << 32);
//! let out = select(wide.view(), &Request::builder("sim").k(1).build().unwrap());
//! assert_eq!(out.unwrap().topk.values, array![[i64::from(i32::MAX) << 32]]);
//! let e = select(wide.view(), &Request::new("air", 3).unwrap()).unwrap_err();
//! assert!(matches!(e, rtopk::Error::DtypeNotSupported { .. }));
//! ```

// The one exception is `cuda::select_raw`, which passes its caller's contract on device
// addresses through (its module allows it; each block has its SAFETY line).
#![deny(unsafe_code)]

pub mod algorithm;
pub mod auto;
pub mod caps;
pub mod cuda;
pub mod dtype;
pub mod error;
pub mod grouped;
mod kernel;
pub mod param;
pub mod params;
pub mod plan;
pub mod registry;
pub mod request;
pub mod rowwise;
pub mod sim;
pub mod stats;
mod table;

pub use algorithm::{
    Algorithm, KernelElement, Selection, SimDiagnostics, SimFinding, Typed, Value,
};
pub use caps::{Capabilities, Device};
pub use dtype::Dtype;
pub use error::Error;
pub use param::Param;
pub use params::{Params, Precision, Recall};
pub use request::{AUTO_CPU, AUTO_GPU, IndexWidth, K, Place, Request, RequestBuilder, Wanted};
pub use rowwise::RowWise;
pub use topk_ref::{
    Bisect, Element, EpsilonMode, Family, KPerRow, Mode, Options, PAD_INDEX, RowTopK, Rows, TopK,
    TopKError, WorkCounters, bf16, check_shape, f16,
};

/// The order of docs/contract.md §1 (keys of elements and back), re-exported from topk-ref.
pub mod order {
    pub use topk_ref::order::*;
}

/// Generated input rows (the families of the benchmarks and statistics), re-exported from
/// topk-ref.
pub mod inputs {
    pub use topk_ref::inputs::*;
}

use ndarray::ArrayView2;

/// Row-wise top-k of the `(N, M)` matrix `x` of any element type ([`Value`]) as `request`
/// asks: one call whatever the algorithm (CPU, baseline, simulator, GPU) and the element type. The
/// request is checked against the rows first ([`Request::check`]: the element type, `k`
/// against `M`, per-row inputs), and every failure is a typed [`Error`].
pub fn select<E: Value>(x: ArrayView2<'_, E>, request: &Request) -> Result<Selection<E>, Error> {
    let mut out = Selection::default();
    select_into(x, request, &mut out)?;
    Ok(out)
}

/// [`select`] into `out`, reusing its buffers when they have the right shape (the plain
/// path; a ragged request allocates its outputs).
pub fn select_into<E: Value>(
    x: ArrayView2<'_, E>,
    request: &Request,
    out: &mut Selection<E>,
) -> Result<(), Error> {
    let (n, m) = x.dim();
    let k = request.check(n, m, E::DTYPE)?;
    let algo = registry::build(request, request.wanted().iterations);
    let opts = request.options();
    let threshold = request.wanted().threshold;
    if request.is_ragged() {
        // `check` let only algorithms that take ragged requests through
        return E::select_ragged_into(algo.as_ref(), x, &request.rows(), opts, threshold, out);
    }
    E::select_into(algo.as_ref(), x, k, opts, out)?;
    if threshold {
        out.threshold = Some(thresholds(x, &out.topk.indices, opts));
    }
    Ok(())
}

/// Each row's threshold (docs/contract.md §5) read off a plain selection: the selected value
/// that ranks last, as `f32` (NaN where k = 0). Any algorithm's selection serves, exact or
/// approximate.
fn thresholds<E: Element>(
    x: ArrayView2<'_, E>,
    indices: &ndarray::Array2<u32>,
    opts: Options,
) -> ndarray::Array1<f32> {
    let (mut row_copy, mut chosen_copy) = (Vec::new(), Vec::new());
    let mut out = Vec::with_capacity(x.nrows());
    for (row, chosen) in x.outer_iter().zip(indices.outer_iter()) {
        let row = contiguous(row, &mut row_copy);
        let chosen = contiguous(chosen, &mut chosen_copy);
        out.push(topk_ref::ragged::threshold_of(row, chosen, opts.mode, opts.sorted));
    }
    out.into()
}

/// The row as a slice: itself where contiguous, else copied into `buf`.
fn contiguous<'a, T: Copy>(row: ndarray::ArrayView1<'a, T>, buf: &'a mut Vec<T>) -> &'a [T] {
    match row.to_slice() {
        Some(s) => s,
        None => {
            buf.clear();
            buf.extend(row.iter().copied());
            buf
        }
    }
}
