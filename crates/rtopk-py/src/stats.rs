//! `rtopk.stats` and `rtopk.expected_iterations`: the library's iteration statistics
//! ([`rtopk::stats`], the numbers `rtopk stats iterations --json` prints) and Appendix A's E(n).

use numpy::PyReadonlyArray2;
use pyo3::prelude::*;
use rtopk::stats::{IterationsSpec, Rows, iterations};
use rtopk::{EpsilonMode, Family};

use crate::errors::{detached, guard, to_py, value_error};
use crate::select::{count, k_of, params};

/// SPEC §4's `stats iterations` object as JSON: rows drawn from `dist` (width `m`, seeded), or
/// the rows of the C-order matrix `rows`. The interpreter is detached while the rows are
/// measured.
#[pyfunction]
#[pyo3(signature = (k, m, reps, dist, seed, rows, precision, max_iter, epsilon))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn stats_iterations(
    py: Python<'_>,
    k: i64,
    m: Option<i64>,
    reps: Option<i64>,
    dist: &str,
    seed: i64,
    rows: Option<PyReadonlyArray2<'_, f32>>,
    precision: f64,
    max_iter: Option<i64>,
    epsilon: &str,
) -> PyResult<String> {
    guard(|| {
        let k = k_of(k)?;
        let m = m.map(|m| count("m", m)).transpose()?;
        let reps = reps.map(|r| count("reps", r)).transpose()?;
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
        let params = rtopk::Params { epsilon, ..params(max_iter, precision)? };
        match &rows {
            None => {
                let m = m.ok_or_else(|| value_error("give m (the row width), or rows"))?;
                let family: Family =
                    dist.parse().map_err(|e: topk_ref::TopKError| to_py(e.into()))?;
                let rows = Rows::Family { family, seed, m, dtype: rtopk::Dtype::Float32 };
                let spec = IterationsSpec { rows, k, reps, params };
                detached(py, move || iterations(&spec)?.to_json())
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
                detached(py, move || iterations(&spec)?.to_json())
            }
        }
    })
}

/// E(n) of Appendix A, eq. (4): the expected iteration count of Algorithm 1 on standard-normal
/// rows of width `m` (`0 < k < m`).
#[pyfunction]
pub(crate) fn expected_iterations(m: i64, k: i64) -> PyResult<f64> {
    let (m, k) = (count("m", m)?, k_of(k)?);
    analysis::expectation::expected_iterations(m, k).map_err(|e| to_py(e.into()))
}
