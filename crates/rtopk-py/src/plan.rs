//! `rtopk.plan`: the launch program of a request for rows of a shape, as the command line's
//! `rtopk plan --json` prints it (the library's `rtopk::plan::program`).

use pyo3::prelude::*;

use crate::engine;
use crate::errors::{detached, to_py};
use crate::request::Request;

/// The program `request` runs on `n` rows of width `m` of its dtype, on the GPU named by `gpu`
/// (`a100`, `h100`, `h200`) or, without one, on the request's live GPU; as JSON.
#[pyfunction]
#[pyo3(signature = (request, n, m, gpu = None))]
pub(crate) fn plan_json(
    py: Python<'_>,
    request: &Request,
    n: usize,
    m: usize,
    gpu: Option<String>,
) -> PyResult<String> {
    let inner = request.inner.clone();
    let dtype = request.dtype;
    let program = detached(py, move || engine::program(&inner, n, m, dtype, gpu))?;
    serde_json::to_string(&program).map_err(|e| to_py(e.into()))
}
