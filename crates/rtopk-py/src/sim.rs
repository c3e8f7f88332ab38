//! `rtopk.sim`: the RTop-K kernel on the warp simulator over a matrix — its results and every
//! diagnostic — with or without a seeded bug, and the seeded-bug catalog.

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::engine::{self, DiagSummary, Diagnostic, LaunchResult, Mutant, MutantReport, SimLaunch};
use crate::errors::{detached, guard, to_py, value_error};
use crate::request::Request;
use crate::select::try_map;

/// The diagnostics of a summary, by kind: (kind, count) in the summary's order.
fn kinds(summary: &DiagSummary) -> Vec<(&'static str, u64)> {
    summary.kinds().iter().map(|c| (c.kind.name(), c.count)).collect()
}

/// The names of the seeded bugs, in catalog order.
#[pyfunction]
pub(crate) fn mutant_names() -> Vec<&'static str> {
    engine::mutant_names()
}

/// A diagnostic as a dict: kind, the CUDA operation, the kernel's source label, where, and the
/// whole finding as one line.
fn diagnostic<'py>(py: Python<'py>, d: &Diagnostic) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("kind", d.kind.name())?;
    out.set_item("op", d.op.name())?;
    out.set_item("label", d.label)?;
    out.set_item("block", d.block)?;
    out.set_item("warp", d.warp)?;
    out.set_item("lanes", d.lanes)?;
    out.set_item("address", d.address)?;
    out.set_item("benign", d.kind.is_benign())?;
    out.set_item("message", d.to_string())?;
    Ok(out)
}

fn diagnostics<'py>(py: Python<'py>, ds: &[Diagnostic]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for d in ds {
        list.append(diagnostic(py, d)?)?;
    }
    Ok(list)
}

/// Runs the simulated kernel over the `(N, M)` matrix `x` as the GPU would, as `request`
/// asks (its k, mode, order and bisection): the CUDA launcher's plan for the shape (or the
/// family `strategy` forces), lanes and warps in order or in a seeded shuffled order, the sort
/// launch with `sorted`, optionally with the seeded bug `mutant`. Returns a dict: values,
/// indices (int64), iterations (int32), the kernel (the plan's unit), diagnostics (the first
/// ones kept, as dicts), their total and their count by kind.
#[pyfunction]
#[pyo3(signature = (x, request, *, mutant = None, strategy = "auto", schedule_seed = None))]
pub(crate) fn sim_run<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f32>,
    request: &Request,
    mutant: Option<&str>,
    strategy: &str,
    schedule_seed: Option<i64>,
) -> PyResult<Bound<'py, PyDict>> {
    guard(|| {
        let k = request.plain_k("rtopk.sim.run")?;
        let (n, m) = x.as_array().dim();
        let r = &request.inner;
        let launch = SimLaunch {
            k,
            mode: r.options().mode,
            sorted: r.options().sorted,
            bisect: r.bisect(),
            mutant,
            strategy,
            // any 64 bits seed it
            schedule_seed: schedule_seed.map(|seed| seed as u64),
        };
        let plan = engine::sim_plan(&launch, n, m).map_err(value_error)?;
        let view = x.as_array();
        let r: LaunchResult = detached(py, move || engine::simulate(plan, view))?;
        let out = PyDict::new(py);
        let shape = [n, k];
        let indices = try_map(r.indices.iter().copied(), i64::from).map_err(to_py)?;
        let iterations = try_map(r.iterations.iter().copied(), |i| i as i32).map_err(to_py)?;
        out.set_item("values", PyArray1::from_vec(py, r.values).reshape(shape)?)?;
        out.set_item("indices", PyArray1::from_vec(py, indices).reshape(shape)?)?;
        out.set_item("iterations", PyArray1::from_vec(py, iterations))?;
        out.set_item("kernel", r.plan.unit.to_string())?;
        out.set_item("diagnostics", diagnostics(py, &r.diagnostics)?)?;
        out.set_item("diagnostics_total", r.diagnostics_total)?;
        out.set_item("kinds", kinds(&r.summary))?;
        let coverage = PyDict::new(py);
        coverage.set_item("steps", r.coverage.steps.clone())?;
        coverage.set_item("branches", r.coverage.branches.clone())?;
        out.set_item("coverage", coverage)?;
        Ok(out)
    })
}

/// The names of the launch strategies (`auto` first).
#[pyfunction]
pub(crate) fn strategy_names() -> Vec<&'static str> {
    engine::strategy_names()
}

/// A catalog line as a dict.
fn report<'py>(py: Python<'py>, r: &MutantReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("mutant", r.mutant.map(Mutant::name))?;
    d.set_item("equivalent", r.mutant.is_some_and(Mutant::is_equivalent))?;
    d.set_item("families", r.mutant.map(Mutant::families))?;
    d.set_item("caught", r.caught.name())?;
    d.set_item("first_diagnostic", r.first_diagnostic.as_ref().map(ToString::to_string))?;
    d.set_item("first_mismatch", &r.first_mismatch)?;
    d.set_item("diagnostics_total", r.diagnostics_total)?;
    d.set_item("kinds", kinds(&r.summary))?;
    Ok(d)
}

/// The seeded-bug catalog: the clean kernel, then every mutant,
/// each run over the catalog's fixed suite, with how the simulator caught it.
#[pyfunction]
pub(crate) fn mutant_catalog(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    guard(|| {
        let reports = detached(py, || Ok(engine::mutant_catalog()))?;
        let list = PyList::empty(py);
        for r in &reports {
            list.append(report(py, r)?)?;
        }
        Ok(list)
    })
}
