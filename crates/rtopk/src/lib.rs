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
//!   the search (`max_iter` or `precision`, docs/contract.md §2), the index width
//!   ([`IndexWidth`]), where the rows are ([`Place`]), and per-row `lengths` and `hint`
//!   (checked against the rows, then refused with [`Error::NotYetSupported`] for now).
//!   [`Request::check`] checks it against `(n, m, dtype)`.
//! * [`select`]`(x, &request)` — host rows of `f32`, `f16` or `bf16` ([`Float`]) in, a
//!   [`Selection`] out. Iteration counts are computed only when the request asks for them:
//!   without them `cuda` and `sim` take the route that splits long rows, as `rtopk.topk` does.
//!   [`select_into`] reuses the output buffers (the CLI's block loop).
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
//! ```
//!
//! Element types ([`Dtype`], [`Float`]): `f32`, `f16` and `bf16` (docs/contract.md §1: each
//! element ordered by its exact f32 value; values returned as the input's own bits, in its
//! type). Every algorithm takes all three.

// The one exception is `cuda::select_raw`, which passes its caller's contract on device
// addresses through (its module allows it; each block has its SAFETY line).
#![deny(unsafe_code)]

pub mod algorithm;
pub mod caps;
pub mod cuda;
pub mod dtype;
pub mod error;
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

pub use algorithm::{Algorithm, Float, Selection, SimDiagnostics, SimFinding};
pub use caps::{Capabilities, Device};
pub use dtype::Dtype;
pub use error::Error;
pub use param::Param;
pub use params::{Params, Precision};
pub use request::{AUTO_CPU, AUTO_GPU, IndexWidth, K, Place, Request, RequestBuilder, Wanted};
pub use rowwise::RowWise;
pub use topk_ref::{
    Bisect, Element, EpsilonMode, Family, Mode, Options, RowTopK, TopK, TopKError, WorkCounters,
    bf16, check_shape, f16,
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

/// Row-wise top-k of the `(N, M)` matrix `x` of `f32`, `f16` or `bf16` as `request` asks: one
/// call whatever the algorithm (CPU, baseline, simulator, GPU) and the element type. The
/// request is checked against the rows first ([`Request::check`]: the element type, `k`
/// against `M`, per-row inputs), and every failure is a typed [`Error`].
pub fn select<E: Float>(x: ArrayView2<'_, E>, request: &Request) -> Result<Selection<E>, Error> {
    let mut out = Selection::default();
    select_into(x, request, &mut out)?;
    Ok(out)
}

/// [`select`] into `out`, reusing its buffers when they have the right shape.
pub fn select_into<E: Float>(
    x: ArrayView2<'_, E>,
    request: &Request,
    out: &mut Selection<E>,
) -> Result<(), Error> {
    let (n, m) = x.dim();
    let k = request.check(n, m, E::DTYPE)?;
    let algo = registry::build(request, request.wanted().iterations);
    E::select_into(algo.as_ref(), x, k, request.options(), out)
}
