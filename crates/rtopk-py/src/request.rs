//! `rtopk._native.Request`: what a call asks for, built once per call from the Python
//! arguments, checked once, and passed to every native entry (NumPy and CPU-tensor select,
//! the CUDA launch, the simulator, the trace, the statistics) in place of positional lists.
//!
//! Everything that does not depend on the input's width is checked when the request is built:
//! the algorithm (`auto` resolved for the device; an unknown name, a CPU algorithm on a GPU
//! tensor), `k >= 0`, the bisection parameters (`max_iter` / `precision`: only for the
//! bisection family, not both; docs/contract.md §2), iteration counts only from an algorithm
//! that reports them (§3), the element type, the index type. [`Request::check_width`] adds
//! the width (`1 <= M`, `k <= M`, int32 indices only for `M <= 2^31`).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};
use rtopk::algorithm::dtype_not_supported;
use rtopk::registry::unsupported;
use rtopk::{Algorithm, Bisect, Device, Dtype, Error, Mode, Options, Param, Params, Precision};

use crate::engine;
use crate::errors::{guard, to_py, value_error};

/// What `algo="auto"` stands for on the CPU: `bisect`, RTop-K's bisection (Algorithm 1), the
/// fastest exact CPU algorithm of the README's `rtopk bench cpu` table at every measured shape
/// (65536 × 256 to 16384 × 4096).
pub(crate) const AUTO_CPU: &str = "bisect";
/// What `algo="auto"` stands for on a GPU: the RTop-K CUDA kernel.
pub(crate) const AUTO_GPU: &str = "cuda";

/// A checked request (see the module docs). Immutable: one request may serve many calls.
#[pyclass(frozen, module = "rtopk._native")]
pub(crate) struct Request {
    /// The algorithm, `auto` resolved, configured with the bisection parameters.
    pub(crate) algorithm: Box<dyn Algorithm>,
    /// The bisection parameters (the simulator, the trace and the statistics use them too).
    pub(crate) params: Params,
    pub(crate) k: usize,
    pub(crate) mode: Mode,
    pub(crate) sorted: bool,
    /// Per-row iteration counts wanted (docs/contract.md §3).
    pub(crate) iterations: bool,
    /// 32 or 64.
    pub(crate) index_bits: u32,
    pub(crate) dtype: Dtype,
    pub(crate) device: Device,
    /// The CUDA device (`cuda:N`) whose memory holds the rows; 0 on the CPU.
    pub(crate) ordinal: usize,
}

impl Request {
    /// The output options (largest or smallest, index or value order).
    pub(crate) fn options(&self) -> Options {
        Options { mode: self.mode, sorted: self.sorted }
    }

    /// The bisection (Algorithm 1 or 2) the parameters describe.
    pub(crate) fn bisect(&self) -> PyResult<Bisect> {
        self.params.bisect().map_err(to_py)
    }

    /// The checks that need the rows' width `m`.
    pub(crate) fn check_width(&self, m: usize) -> PyResult<()> {
        engine::check_shape(m, self.k).map_err(to_py)?;
        if self.index_bits == 32 && m > 1 << 31 {
            return Err(value_error(format!(
                "int32 indices cannot index rows of M = {m} > 2^31 values; use int64"
            )));
        }
        Ok(())
    }
}

#[pymethods]
impl Request {
    /// Builds and checks a request. Every argument is keyword-only; `k` must be an integer (a
    /// bool is a `TypeError`, as in `torch.topk`) and the flags booleans.
    #[new]
    #[pyo3(signature = (
        *, k, algo = "auto", largest = true, sorted = true, iterations = false,
        max_iter = None, precision = 0.0, index_dtype = "int64", dtype = "float32",
        device = "cpu"
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        k: &Bound<'_, PyAny>,
        algo: &str,
        largest: bool,
        sorted: bool,
        iterations: bool,
        max_iter: Option<&Bound<'_, PyAny>>,
        precision: f64,
        index_dtype: &str,
        dtype: &str,
        device: &str,
    ) -> PyResult<Self> {
        guard(|| {
            let k = integer("k", k)?;
            let max_iter = max_iter.map(max_iter_of).transpose()?;
            let (device, ordinal) = place_named(device)?;
            let dtype = Dtype::from_name(dtype)
                .ok_or_else(|| PyTypeError::new_err(unsupported_dtype(dtype, true)))?;
            let index_bits = match index_dtype {
                "int64" => 64,
                "int32" => 32,
                other => {
                    return Err(PyTypeError::new_err(format!(
                        "indices_dtype must be int32 or int64, got {other}"
                    )));
                }
            };
            let params = params(max_iter, precision)?;
            let name = resolve_name(algo, device);
            let algorithm = engine::resolve(name, &params).map_err(to_py)?;
            // `cuda` on host memory copies it to GPU 0 and back; a CPU algorithm cannot read
            // device memory.
            if device == Device::Gpu && algorithm.caps().device != Device::Gpu {
                let why = format!(
                    "the input is on a GPU, where only '{AUTO_GPU}' (or 'auto') runs; move it \
                     to the CPU for the CPU algorithms"
                );
                return Err(to_py(Error::WrongDevice { algo: name.to_string(), why }));
            }
            if !algorithm.caps().takes(dtype) {
                return Err(to_py(dtype_not_supported(dtype, name)));
            }
            if iterations && !algorithm.caps().iterations {
                return Err(to_py(unsupported(Param::Iterations, name)));
            }
            let mode = if largest { Mode::Largest } else { Mode::Smallest };
            Ok(Request {
                algorithm,
                params,
                k,
                mode,
                sorted,
                iterations,
                index_bits,
                dtype,
                device,
                ordinal,
            })
        })
    }

    /// Checks the request against rows of width `m` (`1 <= m`, `k <= m`, the index width):
    /// a `ValueError` with the library's message otherwise.
    fn check(&self, m: &Bound<'_, PyAny>) -> PyResult<()> {
        let m = integer("m", m)?;
        self.check_width(m)
    }

    /// The algorithm's registry name (`auto` resolved).
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.algorithm.name()
    }

    #[getter]
    fn k(&self) -> usize {
        self.k
    }

    #[getter]
    fn largest(&self) -> bool {
        self.mode == Mode::Largest
    }

    #[getter]
    fn sorted(&self) -> bool {
        self.sorted
    }

    #[getter]
    fn iterations(&self) -> bool {
        self.iterations
    }

    #[getter]
    fn max_iter(&self) -> Option<u32> {
        self.params.max_iter
    }

    #[getter]
    fn precision(&self) -> f64 {
        self.params.precision.map_or(0.0, |p| f64::from(p.get()))
    }

    #[getter]
    fn index_dtype(&self) -> &'static str {
        if self.index_bits == 32 { "int32" } else { "int64" }
    }

    #[getter]
    fn dtype(&self) -> &'static str {
        self.dtype.name()
    }

    /// `"cpu"` or `"cuda:N"`.
    #[getter]
    fn device(&self) -> String {
        match self.device {
            Device::Cpu => "cpu".to_string(),
            Device::Gpu => format!("cuda:{}", self.ordinal),
        }
    }

    fn __repr__(&self) -> String {
        let max_iter = self.params.max_iter.map_or("None".to_string(), |n| n.to_string());
        format!(
            "Request(algorithm='{}', k={}, largest={}, sorted={}, iterations={}, \
             max_iter={max_iter}, precision={:?}, index_dtype='{}', dtype='{}', device='{}')",
            self.algorithm(),
            self.k,
            py_bool(self.largest()),
            py_bool(self.sorted),
            py_bool(self.iterations),
            self.precision(),
            self.index_dtype(),
            self.dtype(),
            self.device(),
        )
    }
}

fn py_bool(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

/// Where the rows are: `"cpu"`, or `"cuda"` / `"cuda:N"` (CUDA device N, 0 by default).
fn place_named(name: &str) -> PyResult<(Device, usize)> {
    if let Some(n) = name.strip_prefix("cuda:") {
        let ordinal = n.parse().map_err(|_| {
            value_error(format!("device '{name}': expected 'cpu', 'cuda' or 'cuda:N'"))
        })?;
        return Ok((Device::Gpu, ordinal));
    }
    Ok((device_named(name)?, 0))
}

/// The kind of device called `name` (`"cpu"` or `"cuda"`).
fn device_named(name: &str) -> PyResult<Device> {
    match name {
        "cpu" => Ok(Device::Cpu),
        "cuda" => Ok(Device::Gpu),
        other => Err(value_error(format!("device '{other}': expected 'cpu', 'cuda' or 'cuda:N'"))),
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

/// The bisection parameters: `max_iter` None or a count, `precision` 0 (exact) or a finite
/// number > 0 (docs/contract.md §2).
fn params(max_iter: Option<u32>, precision: f64) -> PyResult<Params> {
    let precision =
        if precision == 0.0 { None } else { Some(Precision::new(precision).map_err(to_py)?) };
    Ok(Params { max_iter, precision, ..Params::default() })
}

/// The registry name `algo` stands for on `device`.
fn resolve_name(algo: &str, device: Device) -> &str {
    match (algo, device) {
        ("auto", Device::Cpu) => AUTO_CPU,
        ("auto", Device::Gpu) => AUTO_GPU,
        (name, _) => name,
    }
}

/// The algorithm `algo="auto"` stands for on `device` (`"cpu"` or `"cuda"`).
#[pyfunction]
pub(crate) fn auto_algorithm(device: &str) -> PyResult<&'static str> {
    Ok(match device_named(device)? {
        Device::Cpu => AUTO_CPU,
        Device::Gpu => AUTO_GPU,
    })
}

/// The `TypeError` message for an input of dtype `name` (the same for arrays and tensors):
/// what `rtopk.topk` takes, or, with `sixteen_bit` false, what `rtopk.sim.run` and
/// `rtopk.trace` take.
#[pyfunction]
#[pyo3(signature = (name, sixteen_bit = true))]
pub(crate) fn unsupported_dtype(name: &str, sixteen_bit: bool) -> String {
    if sixteen_bit {
        format!(
            "rtopk selects from float32, float16 and bfloat16 arrays and tensors; got dtype \
             {name} (convert others with .astype(numpy.float32) or .float())"
        )
    } else {
        format!(
            "the warp simulator takes float32 rows only in rtopk.sim.run and rtopk.trace \
             (rtopk.topk with algo='sim' takes float16 and bfloat16 too); got dtype {name} \
             (convert with .astype(numpy.float32) or .float())"
        )
    }
}
