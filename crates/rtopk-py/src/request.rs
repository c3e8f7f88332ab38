//! `rtopk._native.Request`: what a call asks for, built once per call from the Python
//! arguments into the library's one request ([`rtopk::Request`], checked by its builder), and
//! passed to every native entry (NumPy and CPU-tensor select, the CUDA launch, the simulator,
//! the trace, the statistics) in place of positional lists.
//!
//! The face converts Python's values (torch-style `TypeError`s for a bool or a non-integer,
//! `ValueError` for a negative count where Rust's unsigned types cannot say it) and names the
//! element type; everything else — the algorithm (`auto` resolved for the device; an unknown
//! name, a CPU algorithm on a GPU tensor), the bisection parameters (docs/contract.md §2),
//! iteration counts only from an algorithm that reports them (§3), the width and per-row
//! inputs against the rows (§1, §5) — is the library's check, with its messages.

use numpy::{PyReadonlyArray1, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};
use rtopk::{AUTO_CPU, AUTO_GPU, Dtype, IndexWidth, K, Mode, Params, Place, Precision, Recall};

use crate::errors::{guard, to_py, value_error};

/// A checked request (see the module docs). Immutable: one request may serve many calls.
#[pyclass(frozen, module = "rtopk._native")]
pub(crate) struct Request {
    /// The library's request.
    pub(crate) inner: rtopk::Request,
    /// The element type of the rows it is for.
    pub(crate) dtype: Dtype,
}

impl Request {
    /// Checks the request against `n` rows of width `m` of its element type (the library's
    /// [`rtopk::Request::check`]); returns the output width K.
    pub(crate) fn check_rows(&self, n: usize, m: usize) -> PyResult<usize> {
        self.inner.check(n, m, self.dtype).map_err(to_py)?;
        Ok(self.width())
    }

    /// The output width: the scalar k, or the largest k of a row (docs/contract.md §5).
    pub(crate) fn width(&self) -> usize {
        self.inner.k().width()
    }

    /// The rows the per-row inputs speak of (`None` when none is given).
    fn per_row_rows(&self) -> Option<usize> {
        if let K::PerRow(ks) = self.inner.k() {
            return Some(ks.len());
        }
        self.inner.lengths().map(<[usize]>::len).or_else(|| self.inner.hint().map(<[f32]>::len))
    }

    /// The one k of a plain request (what the simulator's own views and the statistics take);
    /// a `ValueError` naming `what` for a ragged one.
    pub(crate) fn plain_k(&self, what: &str) -> PyResult<usize> {
        match self.inner.k().uniform() {
            Some(k) if !self.is_ragged() => Ok(k),
            _ => Err(value_error(format!(
                "{what} takes one k for every row, without lengths or hints"
            ))),
        }
    }

    /// The options the simulator's own views take: mode, order and bisection.
    pub(crate) fn mode(&self) -> Mode {
        self.inner.options().mode
    }

    /// `true` for a request with lengths, k per row or a hint (docs/contract.md §5).
    pub(crate) fn is_ragged(&self) -> bool {
        matches!(self.inner.k(), K::PerRow(_))
            || self.inner.lengths().is_some()
            || self.inner.hint().is_some()
    }
}

#[pymethods]
impl Request {
    /// Builds and checks a request. Every argument is keyword-only; `k` must be an integer (a
    /// bool is a `TypeError`, as in `torch.topk`) or a 1-D int64 array (one k per row), the
    /// flags booleans, `lengths` a 1-D int64 array and `hint` a 1-D float32 array.
    #[new]
    #[pyo3(signature = (
        *, k, algo = "auto", largest = true, sorted = true, iterations = false,
        threshold = false, max_iter = None, precision = 0.0, index_dtype = "int64",
        dtype = "float32", device = "cpu", lengths = None, hint = None, recall = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        k: &Bound<'_, PyAny>,
        algo: &str,
        largest: bool,
        sorted: bool,
        iterations: bool,
        threshold: bool,
        max_iter: Option<&Bound<'_, PyAny>>,
        precision: f64,
        index_dtype: &str,
        dtype: &str,
        device: &str,
        lengths: Option<&Bound<'_, PyAny>>,
        hint: Option<PyReadonlyArray1<'_, f32>>,
        recall: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        guard(|| {
            let k = k_of(k)?;
            let max_iter = max_iter.map(max_iter_of).transpose()?;
            let recall = recall.map(recall_of).transpose()?;
            let place = place_named(device)?;
            let dtype = Dtype::from_name(dtype)
                .ok_or_else(|| PyTypeError::new_err(unsupported_dtype(dtype, true)))?;
            let index = match index_dtype {
                "int64" => IndexWidth::I64,
                "int32" => IndexWidth::U32,
                other => {
                    return Err(PyTypeError::new_err(format!(
                        "indices_dtype must be int32 or int64, got {other}"
                    )));
                }
            };
            let precision = if precision == 0.0 {
                None
            } else {
                Some(Precision::new(precision).map_err(to_py)?)
            };
            let mut builder = rtopk::Request::builder(algo)
                .k_of(k)
                .largest(largest)
                .sorted(sorted)
                .iterations(iterations)
                .threshold(threshold)
                .params(Params { max_iter, precision, recall, ..Params::default() })
                .index_width(index)
                .place(place);
            if let Some(lengths) = lengths {
                builder = builder.lengths(counts("lengths", lengths)?);
            }
            if let Some(hint) = hint {
                builder = builder.hint(hint.as_array().to_vec());
            }
            let inner = builder.build().map_err(to_py)?;
            Ok(Request { inner, dtype })
        })
    }

    /// Checks the request against `n` rows of width `m` (`1 <= m`, every k `<= m`, the index
    /// width, one entry per row and `lengths <= m` for per-row inputs; `n` defaults to the
    /// per-row inputs' own length): a `ValueError` with the library's message otherwise.
    /// Returns the output width K.
    #[pyo3(signature = (m, n = None))]
    fn check(&self, m: &Bound<'_, PyAny>, n: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
        let m = integer("m", m)?;
        let n = match n {
            Some(n) => integer("n", n)?,
            None => self.per_row_rows().unwrap_or(0),
        };
        self.check_rows(n, m)
    }

    /// The algorithm's registry name (`auto` resolved).
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.inner.algo()
    }

    /// The output width: the scalar k, or the largest of the per-row k.
    #[getter]
    fn k(&self) -> usize {
        self.width()
    }

    /// `True` with lengths, k per row or a hint (docs/contract.md §5).
    #[getter]
    fn ragged(&self) -> bool {
        self.is_ragged()
    }

    #[getter]
    fn largest(&self) -> bool {
        self.inner.options().mode == Mode::Largest
    }

    #[getter]
    fn sorted(&self) -> bool {
        self.inner.options().sorted
    }

    #[getter]
    fn iterations(&self) -> bool {
        self.inner.wanted().iterations
    }

    #[getter]
    fn threshold(&self) -> bool {
        self.inner.wanted().threshold
    }

    #[getter]
    fn max_iter(&self) -> Option<u32> {
        self.inner.params().max_iter
    }

    #[getter]
    fn precision(&self) -> f64 {
        self.inner.params().precision.map_or(0.0, |p| f64::from(p.get()))
    }

    /// The recall target (docs/contract.md §6), or `None` for none.
    #[getter]
    fn recall(&self) -> Option<f64> {
        self.inner.params().recall.map(|r| f64::from(r.get()))
    }

    #[getter]
    fn index_dtype(&self) -> &'static str {
        match self.inner.index_width() {
            IndexWidth::U32 => "int32",
            IndexWidth::I64 => "int64",
        }
    }

    #[getter]
    fn dtype(&self) -> &'static str {
        self.dtype.name()
    }

    /// `"cpu"` or `"cuda:N"`.
    #[getter]
    fn device(&self) -> String {
        match self.inner.place() {
            Place::Cpu => "cpu".to_string(),
            Place::Cuda(n) => format!("cuda:{n}"),
        }
    }

    fn __repr__(&self) -> String {
        let max_iter = self.max_iter().map_or("None".to_string(), |n| n.to_string());
        let k = match self.inner.k() {
            K::PerRow(ks) => format!("<{} per row, width {}>", ks.len(), self.width()),
            _ => self.width().to_string(),
        };
        format!(
            "Request(algorithm='{}', k={k}, largest={}, sorted={}, iterations={}, \
             threshold={}, max_iter={max_iter}, precision={:?}{}, index_dtype='{}', \
             dtype='{}', device='{}'{})",
            self.algorithm(),
            py_bool(self.largest()),
            py_bool(self.sorted()),
            py_bool(self.iterations()),
            py_bool(self.threshold()),
            self.precision(),
            self.recall().map_or(String::new(), |r| format!(", recall={r:?}")),
            self.index_dtype(),
            self.dtype(),
            self.device(),
            match (self.inner.lengths(), self.inner.hint()) {
                (None, None) => "",
                (Some(_), None) => ", lengths=<given>",
                (None, Some(_)) => ", hint=<given>",
                (Some(_), Some(_)) => ", lengths=<given>, hint=<given>",
            },
        )
    }
}

fn py_bool(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

/// Where the rows are: `"cpu"`, or `"cuda"` / `"cuda:N"` (CUDA device N, 0 by default).
fn place_named(name: &str) -> PyResult<Place> {
    let refuse = || value_error(format!("device '{name}': expected 'cpu', 'cuda' or 'cuda:N'"));
    match name {
        "cpu" => Ok(Place::Cpu),
        "cuda" => Ok(Place::Cuda(0)),
        other => match other.strip_prefix("cuda:") {
            Some(n) => n.parse().map(Place::Cuda).map_err(|_| refuse()),
            None => Err(refuse()),
        },
    }
}

/// The name of `value`'s type, for messages.
fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map_or_else(|_| "?".to_string(), |n| n.to_string())
}

/// An integer >= 0 called `name`: a `TypeError` for a bool or a non-integer (as torch's
/// argument parser), a `ValueError` below 0 (where PyO3's conversion to an unsigned type would
/// raise `OverflowError`).
pub(crate) fn integer(name: &str, value: &Bound<'_, PyAny>) -> PyResult<usize> {
    if value.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!("{name} must be an integer, not bool")));
    }
    let v: i64 = value.extract().map_err(|_| {
        if value.is_instance_of::<PyInt>() {
            PyValueError::new_err(format!("{name} = {value} is too large"))
        } else {
            PyTypeError::new_err(format!("{name} must be an integer, not {}", type_name(value)))
        }
    })?;
    usize::try_from(v).map_err(|_| value_error(format!("{name} must be >= 0, got {v}")))
}

/// `k`: an integer (one k for every row) or a 1-D int64 array (one per row).
fn k_of(k: &Bound<'_, PyAny>) -> PyResult<K> {
    if k.is_instance_of::<PyUntypedArray>() {
        return Ok(K::PerRow(counts("k", k)?));
    }
    Ok(K::One(integer("k", k)?))
}

/// A per-row count array called `name` (1-D int64, every entry >= 0).
fn counts(name: &str, a: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    let refuse_type = || {
        let what = match a.cast::<PyUntypedArray>() {
            Ok(arr) => format!("a {}-D array of {}", arr.ndim(), arr.dtype()),
            Err(_) => type_name(a),
        };
        PyTypeError::new_err(format!("{name} must be a 1-D int64 array, not {what}"))
    };
    let array: PyReadonlyArray1<'_, i64> = a.extract().map_err(|_| refuse_type())?;
    array
        .as_array()
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            usize::try_from(v).map_err(|_| value_error(format!("{name}[{i}] = {v} must be >= 0")))
        })
        .collect()
}

/// `max_iter` as Python gives it: an integer from 0 to 2^32 - 1 (a bool is a `TypeError`).
fn max_iter_of(n: &Bound<'_, PyAny>) -> PyResult<u32> {
    let refuse = || {
        value_error(format!("max_iter must be None or an integer from 0 to {}, got {n}", u32::MAX))
    };
    if n.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err("max_iter must be None or an integer, not bool"));
    }
    let v: i64 = n.extract().map_err(|_| {
        if n.is_instance_of::<PyInt>() {
            refuse()
        } else {
            PyTypeError::new_err(format!(
                "max_iter must be None or an integer, not {}",
                type_name(n)
            ))
        }
    })?;
    u32::try_from(v).map_err(|_| refuse())
}

/// `recall` as Python gives it: a real number `0 < r <= 1` (a bool is a `TypeError`; the
/// range is the library's check, a `ValueError` quoting the value).
fn recall_of(r: &Bound<'_, PyAny>) -> PyResult<Recall> {
    let refuse =
        || PyTypeError::new_err(format!("recall must be None or a float, not {}", type_name(r)));
    if r.is_instance_of::<PyBool>() {
        return Err(refuse());
    }
    let v: f64 = r.extract().map_err(|_| refuse())?;
    Recall::new(v).map_err(to_py)
}

/// The algorithm `algo="auto"` stands for on `device` (`"cpu"` or `"cuda"`).
#[pyfunction]
pub(crate) fn auto_algorithm(device: &str) -> PyResult<&'static str> {
    match device {
        "cpu" => Ok(AUTO_CPU),
        "cuda" => Ok(AUTO_GPU),
        other => Err(value_error(format!("device '{other}': expected 'cpu', 'cuda' or 'cuda:N'"))),
    }
}

/// The `TypeError` message for an input of dtype `name` (the same for arrays and tensors):
/// what `rtopk.topk` takes, or, with `sixteen_bit` false, what `rtopk.sim.run` and
/// `rtopk.trace` take.
#[pyfunction]
#[pyo3(signature = (name, sixteen_bit = true))]
pub(crate) fn unsupported_dtype(name: &str, sixteen_bit: bool) -> String {
    if sixteen_bit {
        format!(
            "rtopk selects from float32, float16, bfloat16, float64, int8, uint8, int16, int32 \
             and int64 arrays and tensors; got dtype {name} (convert others with \
             .astype(numpy.float32) or .float())"
        )
    } else {
        format!(
            "the warp simulator takes float32 rows only in rtopk.sim.run and rtopk.trace \
             (rtopk.topk with algo='sim' takes float16, bfloat16, float64 and the integers \
             too); got dtype {name} \
             (convert with .astype(numpy.float32) or .float())"
        )
    }
}
