//! # rtopk — row-wise top-k selection, the library face of the workspace
//!
//! The crate a Rust user depends on, and the one the `rtopk` command line and the Python
//! package are thin faces over:
//!
//! * [`registry`]: every SPEC §4 algorithm by name — topk-ref's six, the six baselines, the
//!   warp simulator (`sim`) and the GPU kernel (`cuda`) — behind one matrix-level trait,
//!   [`Algorithm`], with a capability table ([`Capabilities`]) and checked parameters
//!   ([`Params`]). [`select`] is one call whatever the algorithm and the element type.
//! * Element types ([`Dtype`], [`Float`]): `f32`, `f16` and `bf16` (SPEC §1: each element
//!   ordered by its exact f32 value; values returned as the input's own bits, in its type).
//!   Every CPU algorithm takes all three; `sim` and `cuda` take `f32` only for now and refuse
//!   16-bit input with [`Error::DtypeNotSupported`] (never a silent conversion).
//! * [`bench`](mod@bench): the CPU benchmark harness — timing, checking every answer against
//!   the oracle, the comparison grids of the seed papers, JSON reports and SVG charts.
//! * Inputs: generated rows of one input family ([`Family`]) or the caller's own matrix.
//!
//! ```
//! use ndarray::array;
//! use rtopk::{Request, select};
//!
//! let x = array![[0.5f32, 3.0, f32::NAN, 3.0], [1.0, -0.0, 0.0, -2.0]];
//! let out = select(x.view(), 2, &Request::new("bisect")).unwrap();
//! assert_eq!(out.topk.indices, array![[1, 2], [0, 1]]);
//! assert_eq!(out.topk.iterations.unwrap().len(), 2);
//!
//! // The same rows in f16 (or bf16): the same indices, values in the input's type.
//! let h = x.mapv(rtopk::f16::from_f32);
//! let out = select(h.view(), 2, &Request::new("radix")).unwrap();
//! assert_eq!(out.topk.indices, array![[1, 2], [0, 1]]);
//! assert_eq!(out.topk.values[[1, 1]].to_bits(), 0x8000); // -0.0, the input's bits
//! let sim = select(h.view(), 2, &Request::new("sim")).unwrap();
//! assert_eq!(sim.topk.indices, out.topk.indices); // the kernel, simulated on f16 rows
//! ```
//!
//! The engines live in their own crates: `topk_ref` (the order, the oracle, six CPU
//! algorithms), `baselines` (the seed papers' competitors), `warp_sim` (the 32-lane simulator
//! and the RTop-K kernel on it), `rtopk_cuda` (the CUDA kernel) and `analysis` (iteration
//! statistics, the paper's tables).

#![forbid(unsafe_code)]

pub mod algorithm;
pub mod bench;
pub mod cuda;
pub mod dtype;
pub mod error;
pub mod npy;
pub mod params;
pub mod registry;
pub mod rowwise;
pub mod sim;
pub mod stats;

pub use algorithm::{Algorithm, Capabilities, Device, Selection, SimDiagnostics, SimFinding};
pub use dtype::{Dtype, Float};
pub use error::Error;
pub use params::{Param, Params, Precision};
pub use rowwise::RowWise;
pub use topk_ref::{Bisect, EpsilonMode, Family, Mode, Options, TopK, WorkCounters, bf16, f16};

use ndarray::ArrayView2;

/// What to select with: an algorithm by name, its parameters and the output options.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Request {
    /// The SPEC §4 name ([`registry::ALGORITHMS`]).
    pub algo: String,
    /// Largest or smallest, index or value order.
    pub options: Options,
    /// The bisection family's parameters (default: exact).
    pub params: Params,
}

impl Request {
    /// The `algo` request with default options (largest, index order) and parameters.
    pub fn new(algo: impl Into<String>) -> Self {
        Self { algo: algo.into(), ..Self::default() }
    }
}

/// Row-wise top-k of the `(N, M)` matrix `x` of `f32`, `f16` or `bf16` with the algorithm
/// `request` names: one call whatever the algorithm (CPU, baseline, simulator, GPU) and the
/// element type. Every argument is checked first (name, parameters, the element type against
/// the algorithm's, `k` against `M`, output sizes), and fails with a typed [`Error`].
pub fn select<E: Float>(
    x: ArrayView2<'_, E>,
    k: usize,
    request: &Request,
) -> Result<Selection<E>, Error> {
    let algo = registry::resolve(&request.algo, &request.params)?;
    algo.select_as(x, k, request.options)
}
