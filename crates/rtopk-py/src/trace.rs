//! `rtopk.trace`: one row's journey through the RTop-K kernel on the warp simulator
//! (warp-sim's [`RowTrace`]): the loaded row, each threshold test, the selection's masks, the
//! output — as data, as text and as an SVG picture.

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::engine::{
    self, Moved, Phase, RowTrace, SearchExit, TraceChunk, TraceStep, ordered_value_of_key,
};
use crate::errors::{detached, guard, value_error};
use crate::request::Request;

/// A traced row (the native half of `rtopk.Trace`).
#[pyclass(frozen, module = "rtopk._native")]
pub(crate) struct NativeTrace {
    trace: RowTrace,
    /// The launch's diagnostics (0 for the kernel of docs/kernel.md), as text.
    diagnostics: Vec<String>,
    diagnostics_total: u64,
}

#[pymethods]
impl NativeTrace {
    /// The trace as text (what `rtopk trace` prints).
    fn text(&self) -> String {
        self.trace.to_text()
    }

    /// The trace as an SVG picture: the bisection on top, the selection's chunks below.
    fn svg(&self, py: Python<'_>) -> PyResult<String> {
        let trace = &self.trace;
        detached(py, || engine::trace_svg(trace))
    }

    /// Everything the trace holds, as plain Python data.
    fn data<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let t = &self.trace;
        let d = PyDict::new(py);
        d.set_item("row", t.row)?;
        d.set_item("kernel", &t.kernel)?;
        d.set_item("lanes_per_row", t.lanes_per_row)?;
        d.set_item("keys_per_lane", t.keys_per_lane)?;
        d.set_item("m", t.m)?;
        d.set_item("k", t.k)?;
        d.set_item("largest", t.mode == rtopk::Mode::Largest)?;
        d.set_item("max_iter", t.max_iter)?;
        d.set_item("precision", t.precision)?;
        d.set_item("values", PyArray1::from_slice(py, &t.values))?;
        d.set_item("keys", PyArray1::from_slice(py, &t.keys))?;
        d.set_item("min_key", t.min_key)?;
        d.set_item("max_key", t.max_key)?;
        d.set_item("steps", dicts(py, &t.steps, step)?)?;
        d.set_item("narrowed", t.narrowed)?;
        d.set_item("exit", t.exit.map(exit_name))?;
        d.set_item("iterations", t.iterations)?;
        d.set_item("strong_above", t.strong_above)?;
        d.set_item("band_lo", t.band_lo)?;
        d.set_item("strong_count", t.strong_count)?;
        d.set_item("chunks", dicts(py, &t.chunks, chunk)?)?;
        d.set_item("indices", PyArray1::from_slice(py, &t.out_idx))?;
        d.set_item("selected", PyArray1::from_slice(py, &t.out_val))?;
        d.set_item("diagnostics", &self.diagnostics)?;
        d.set_item("diagnostics_total", self.diagnostics_total)?;
        Ok(d)
    }
}

/// SearchExit as a name.
fn exit_name(e: SearchExit) -> &'static str {
    match e {
        SearchExit::Hit => "hit",
        SearchExit::Converged => "converged",
        SearchExit::Precision => "precision",
        SearchExit::Recall => "recall",
        SearchExit::MaxIter => "max_iter",
    }
}

/// One threshold test as a dict (brackets as keys and as the ordered values they stand for).
fn step<'py>(py: Python<'py>, s: &TraceStep) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let phase = match s.phase {
        Phase::Value => "value",
        Phase::Key => "key",
    };
    let moved = match s.moved {
        Moved::Hi => "hi",
        Moved::Lo => "lo",
        Moved::Hit => "hit",
    };
    d.set_item("iteration", s.iteration)?;
    d.set_item("phase", phase)?;
    d.set_item("lo_key", s.lo_key)?;
    d.set_item("hi_key", s.hi_key)?;
    d.set_item("lo", ordered_value_of_key(s.lo_key))?;
    d.set_item("hi", ordered_value_of_key(s.hi_key))?;
    d.set_item("threshold", s.thres)?;
    d.set_item("t", s.t)?;
    d.set_item("count", s.cnt)?;
    d.set_item("moved", moved)?;
    Ok(d)
}

/// One selection chunk as a dict (bit `l` of a mask is element `base + l`).
fn chunk<'py>(py: Python<'py>, c: &TraceChunk) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("base", c.base)?;
    d.set_item("valid", c.valid)?;
    d.set_item("strong_mask", c.strong_mask)?;
    d.set_item("band_mask", c.band_mask)?;
    d.set_item("sel_mask", c.sel_mask)?;
    d.set_item("band_left_before", c.band_left_before)?;
    d.set_item("written_before", c.written_before)?;
    Ok(d)
}

/// `items` as a list of dicts.
fn dicts<'py, T>(
    py: Python<'py>,
    items: &[T],
    one: impl Fn(Python<'py>, &T) -> PyResult<Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for item in items {
        list.append(one(py, item)?)?;
    }
    Ok(list)
}

/// Traces `row` (1-D float32) through the simulated kernel — the launch family the CUDA
/// launcher's plan picks for one row of that width — as `request` asks (its k, mode and
/// bisection).
#[pyfunction]
pub(crate) fn trace(
    py: Python<'_>,
    row: PyReadonlyArray1<'_, f32>,
    request: &Request,
) -> PyResult<NativeTrace> {
    guard(|| {
        let m = row.len()?;
        let k = request.plain_k("rtopk.trace")?;
        request.check_rows(1, m)?;
        if k == 0 {
            return Err(value_error("k = 0 selects nothing: there is nothing to trace"));
        }
        let (mode, bisect) = (request.mode(), request.inner.bisect());
        let values = row.as_array();
        detached(py, move || {
            let (trace, diagnostics, diagnostics_total) =
                engine::trace_row(values, k, mode, bisect)?;
            Ok(NativeTrace { trace, diagnostics, diagnostics_total })
        })
    })
}
