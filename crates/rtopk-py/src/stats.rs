//! `rtopk.stats` and `rtopk.expected_iterations`: the library's iteration statistics
//! (`rtopk_tools::stats`, the numbers `rtopk stats iterations --json` prints) and Appendix A's E(n).

use numpy::PyReadonlyArray2;
use pyo3::prelude::*;
use rtopk::EpsilonMode;
use rtopk_tools::stats::{IterationsSpec, Rows};

use crate::engine;
use crate::errors::{detached_with, guard, to_py, value_error};
use crate::request::{Request, integer};

/// The `stats iterations` object of docs/contract.md §4 as JSON, for the request's `k` and
/// bisection parameters: rows drawn from `dist` (width `m`, seeded), or the rows of the
/// C-order matrix `rows`. The interpreter is detached while the rows are measured.
#[pyfunction]
#[pyo3(signature = (
    request, *, m = None, reps = None, dist = "normal", seed = 0, rows = None,
    epsilon = "relative"
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn stats_iterations(
    py: Python<'_>,
    request: &Request,
    m: Option<&Bound<'_, PyAny>>,
    reps: Option<&Bound<'_, PyAny>>,
    dist: &str,
    seed: i64,
    rows: Option<PyReadonlyArray2<'_, f32>>,
    epsilon: &str,
) -> PyResult<String> {
    guard(|| {
        let k = request.plain_k("rtopk.stats.iterations")?;
        let m = m.map(|m| integer("m", m)).transpose()?;
        let reps = reps.map(|r| integer("reps", r)).transpose()?;
        let seed = u64::try_from(seed)
            .map_err(|_| value_error(format!("seed must be >= 0, got {seed}")))?;
        let epsilon = match epsilon {
            "relative" => EpsilonMode::RelativeToMax,
            "absolute" => EpsilonMode::Absolute,
            other => {
                return Err(value_error(format!(
                    "epsilon '{other}': expected 'relative' (to the row maximum) or 'absolute'"
                )));
            }
        };
        let params = rtopk::Params { epsilon, ..*request.inner.params() };
        match &rows {
            None => {
                let m = m.ok_or_else(|| value_error("give m (the row width), or rows"))?;
                let family = engine::family(dist).map_err(to_py)?;
                let rows = Rows::Family { family, seed, m, dtype: rtopk::Dtype::Float32 };
                let spec = IterationsSpec { rows, k, reps, params };
                detached_with(py, move || engine::iterations_json(&spec))
            }
            Some(matrix) => {
                let view = matrix.as_array();
                let (_, width) = view.dim();
                if let Some(want) = m.filter(|&want| want != width) {
                    return Err(value_error(format!(
                        "m = {want} does not match the rows' width {width}"
                    )));
                }
                let data =
                    view.to_slice().ok_or_else(|| value_error("rows must be C-contiguous"))?;
                let spec =
                    IterationsSpec { rows: Rows::Matrix { data, m: width }, k, reps, params };
                detached_with(py, move || engine::iterations_json(&spec))
            }
        }
    })
}

/// E(n) of Appendix A, eq. (4): the expected iteration count of Algorithm 1 on standard-normal
/// rows of width `m` (`0 < k < m`).
#[pyfunction]
pub(crate) fn expected_iterations(m: &Bound<'_, PyAny>, k: &Bound<'_, PyAny>) -> PyResult<f64> {
    let (m, k) = (integer("m", m)?, integer("k", k)?);
    engine::expected_iterations(m, k).map_err(to_py)
}
