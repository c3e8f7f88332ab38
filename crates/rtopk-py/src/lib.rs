//! # rtopk-py — the Python package `rtopk` (its native module, `rtopk._native`)
//!
//! A thin face over the library crate `rtopk`, as the command line is: the Python package
//! (`python/rtopk/`) shapes arguments and arrays, builds one `request::Request` per call,
//! and hands it to the functions here, which call the library and convert its results and
//! errors. Nothing here re-implements an algorithm.
//!
//! * `request`: `Request`, what a call asks for (algorithm or `auto`, k — one, or one per
//!   row —, largest, sorted, iteration counts, threshold, `max_iter` / `precision`, index
//!   type, element type, device, lengths, hint), built once into the library's
//!   `rtopk::Request` and checked there; every native entry below takes one.
//! * `select`: row-wise top-k of a 2-D NumPy array through the library's `select` (the
//!   interpreter detached while rayon works).
//! * `cuda`: the launch on torch's CUDA tensors (raw addresses, torch's stream), the GPU
//!   kernel's equivalence check.
//! * `grouped`: grouped selection (docs/contract.md §8, a mixture-of-experts router) through
//!   the library's `rtopk::grouped`: on a NumPy array (detached) and on torch's CUDA tensors.
//! * `plan`: the launch program of a request (`rtopk.plan`).
//! * `trace`: one row through the simulated kernel.
//! * `sim`: the simulated kernel over a matrix, its diagnostics, the seeded-bug catalog.
//! * `stats`: the iteration statistics (`rtopk_tools::stats`) and Appendix A's E(n).
//! * `jax`: the XLA FFI handlers of `rtopk.jax` (CPU and CUDA), read off XLA's call frames.
//! * `engine`: every call into the library's re-exports (`rtopk::cuda`, `rtopk::sim`,
//!   `rtopk::stats`) and its tools crate, in one module. The crate depends on `rtopk` and
//!   `rtopk-tools` only, never on an engine crate.
//! * `errors`: every Rust error as a Python exception; panics caught at the boundary.
//!
//! The crate says `deny(unsafe_code)` rather than `forbid` for the three boundaries that need
//! it, each with `#[allow(unsafe_code)]` on its function and a `// SAFETY:` line per block: the
//! CUDA launches (top-k and grouped) take raw device addresses from torch and hand them to the
//! library's raw launches; a 16-bit input arrives as `uint16` bit patterns, viewed in place as
//! `half::f16` / `half::bf16`; XLA's FFI hands its handlers a C call frame of raw pointers
//! (`jax`).

#![deny(unsafe_code)]

mod cuda;
mod engine;
mod errors;
mod grouped;
mod jax;
mod plan;
mod request;
mod select;
mod sim;
mod stats;
mod trace;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("CudaError", py.get_type::<errors::CudaError>())?;
    m.add("CudaUnavailableError", py.get_type::<errors::CudaUnavailableError>())?;
    m.add("InternalError", py.get_type::<errors::InternalError>())?;
    m.add_class::<request::Request>()?;
    m.add_function(wrap_pyfunction!(request::auto_algorithm, m)?)?;
    m.add_function(wrap_pyfunction!(request::unsupported_dtype, m)?)?;
    m.add_function(wrap_pyfunction!(select::select, m)?)?;
    m.add_function(wrap_pyfunction!(select::algorithms_json, m)?)?;
    m.add_class::<trace::NativeTrace>()?;
    m.add_function(wrap_pyfunction!(trace::trace, m)?)?;
    m.add_function(wrap_pyfunction!(plan::plan_json, m)?)?;
    m.add_function(wrap_pyfunction!(sim::sim_run, m)?)?;
    m.add_function(wrap_pyfunction!(sim::mutant_names, m)?)?;
    m.add_function(wrap_pyfunction!(sim::strategy_names, m)?)?;
    m.add_function(wrap_pyfunction!(sim::mutant_catalog, m)?)?;
    m.add_function(wrap_pyfunction!(stats::stats_iterations, m)?)?;
    m.add_function(wrap_pyfunction!(stats::expected_iterations, m)?)?;
    m.add_function(wrap_pyfunction!(cuda::cuda_launch, m)?)?;
    m.add_function(wrap_pyfunction!(cuda::cuda_per_row_words, m)?)?;
    m.add_function(wrap_pyfunction!(cuda::cuda_libraries_present, m)?)?;
    m.add_function(wrap_pyfunction!(cuda::cuda_add_units_dir, m)?)?;
    m.add_function(wrap_pyfunction!(cuda::cuda_verify, m)?)?;
    m.add_function(wrap_pyfunction!(cuda::cuda_prepare_all, m)?)?;
    m.add_function(wrap_pyfunction!(cuda::_panic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(grouped::grouped_select, m)?)?;
    m.add_function(wrap_pyfunction!(grouped::grouped_launch, m)?)?;
    m.add_function(wrap_pyfunction!(jax::jax_handler, m)?)?;
    Ok(())
}
