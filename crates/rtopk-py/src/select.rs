//! `rtopk.topk` on host memory: a 2-D NumPy array (any strides; torch CPU tensors arrive as
//! NumPy views of their storage) through the library's registry, the interpreter detached.
//!
//! Element types: float32 arrays as they are; float16 and bfloat16 as `uint16` arrays of
//! their bit patterns (numpy has no bfloat16 of its own, and a torch bfloat16 tensor has no
//! NumPy view), with the type named by `dtype`. The bits are read in place as `half::f16` /
//! `half::bf16` and the values come back as `uint16` bits, which Python views as the input's
//! dtype: no conversion anywhere.

use ndarray::{Array, Array2, ArrayView, ArrayView2, Dimension};
use numpy::{
    PyArray1, PyArray2, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use rtopk::algorithm::dtype_not_supported;
use rtopk::registry::{self, unsupported};
use rtopk::{
    Algorithm, Device, Dtype, Error, Float, Mode, Options, Param, Params, Precision, Selection,
    bf16, f16,
};
use topk_ref::TopKError;

use crate::errors::{detached, guard, to_py, value_error};

/// What `algo="auto"` stands for on the CPU: `bisect`, RTop-K's bisection (Algorithm 1), the
/// fastest exact CPU algorithm of the README's `rtopk bench cpu` table at every measured shape
/// (65536 × 256 to 16384 × 4096).
pub(crate) const AUTO_CPU: &str = "bisect";
/// What `algo="auto"` stands for on a GPU: the RTop-K CUDA kernel.
pub(crate) const AUTO_GPU: &str = "cuda";

/// The registry name `algo` stands for on `device`.
pub(crate) fn resolve_name(algo: &str, device: Device) -> &str {
    match (algo, device) {
        ("auto", Device::Cpu) => AUTO_CPU,
        ("auto", Device::Gpu) => AUTO_GPU,
        (name, _) => name,
    }
}

/// The algorithm `algo="auto"` stands for on `device` (`"cpu"` or `"cuda"`).
#[pyfunction]
pub(crate) fn auto_algorithm(device: &str) -> PyResult<&'static str> {
    match device {
        "cpu" => Ok(AUTO_CPU),
        "cuda" => Ok(AUTO_GPU),
        other => Err(value_error(format!("device '{other}': expected 'cpu' or 'cuda'"))),
    }
}

/// The registry, as JSON (name, source, summary and capabilities of every SPEC §4 algorithm).
#[pyfunction]
pub(crate) fn algorithms_json() -> PyResult<String> {
    serde_json::to_string(&registry::ALGORITHMS).map_err(|e| to_py(e.into()))
}

/// The bisection parameters as Python gives them: `max_iter` None or an integer >= 0,
/// `precision` 0 (exact) or a finite number > 0.
pub(crate) fn params(max_iter: Option<i64>, precision: f64) -> PyResult<Params> {
    let max_iter = match max_iter {
        None => None,
        Some(n) => Some(u32::try_from(n).map_err(|_| {
            value_error(format!(
                "max_iter must be None or an integer from 0 to {}, got {n}",
                u32::MAX
            ))
        })?),
    };
    let precision =
        if precision == 0.0 { None } else { Some(Precision::new(precision).map_err(to_py)?) };
    Ok(Params { max_iter, precision, ..Params::default() })
}

/// `k` as Python gives it: an integer >= 0.
pub(crate) fn k_of(k: i64) -> PyResult<usize> {
    count("k", k)
}

/// A count or size named `name` as Python gives it: an integer >= 0 (a `ValueError` otherwise,
/// where PyO3's conversion to an unsigned type would raise `OverflowError`).
pub(crate) fn count(name: &str, value: i64) -> PyResult<usize> {
    usize::try_from(value).map_err(|_| value_error(format!("{name} must be >= 0, got {value}")))
}

/// The largest or smallest mode.
pub(crate) fn mode(largest: bool) -> Mode {
    if largest { Mode::Largest } else { Mode::Smallest }
}

/// A request as Python gives it.
struct Ask<'a> {
    algo: &'a str,
    device: Device,
    k: i64,
    max_iter: Option<i64>,
    precision: f64,
    iterations: bool,
    index_bits: u32,
    dtype: Dtype,
}

impl Ask<'_> {
    /// The checked algorithm and `k` for rows of width `m`: the name (after `auto`), its
    /// parameters, the device, the element type (a `TypeError` where the algorithm does not
    /// take it: never converted), the shape (`0 <= k <= M`, `M >= 1`), the index width, and
    /// iteration counts only from an algorithm that reports them.
    fn check(&self, m: usize) -> PyResult<(Box<dyn Algorithm>, usize)> {
        let k = k_of(self.k)?;
        let name = resolve_name(self.algo, self.device);
        let algorithm =
            registry::resolve(name, &params(self.max_iter, self.precision)?).map_err(to_py)?;
        // `cuda` on host memory copies it to GPU 0 and back; a CPU algorithm cannot read
        // device memory.
        if self.device == Device::Gpu && algorithm.caps().device != Device::Gpu {
            let why = format!(
                "the input is on a GPU, where only '{AUTO_GPU}' (or 'auto') runs; move it to \
                 the CPU for the CPU algorithms"
            );
            return Err(to_py(Error::WrongDevice { algo: name.to_string(), why }));
        }
        if !algorithm.caps().takes(self.dtype) {
            return Err(to_py(dtype_not_supported(self.dtype, name)));
        }
        topk_ref::check_shape(m, k).map_err(|e| to_py(e.into()))?;
        if self.iterations && !algorithm.caps().iterations {
            return Err(to_py(unsupported(Param::Iterations, name)));
        }
        match self.index_bits {
            64 => {}
            32 if m <= 1 << 31 => {}
            32 => {
                return Err(value_error(format!(
                    "int32 indices cannot index rows of M = {m} > 2^31 values; use int64"
                )));
            }
            other => {
                return Err(value_error(format!("index_bits must be 32 or 64, got {other}")));
            }
        }
        Ok((algorithm, k))
    }
}

/// The element type called `name` (`"float32"`, `"float16"`, `"bfloat16"`).
fn dtype_named(name: &str) -> PyResult<Dtype> {
    Dtype::from_name(name).ok_or_else(|| PyTypeError::new_err(unsupported_dtype(name, true)))
}

/// Checks a request for `device` (`"cpu"` or `"cuda"`) on rows of `dtype` without running it,
/// and returns the algorithm's name (`auto` resolved). The CUDA path calls it before
/// allocating its outputs.
#[pyfunction]
#[pyo3(signature = (
    algo, device, m, k, max_iter, precision, iterations, index_bits, dtype = "float32"
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_request(
    algo: &str,
    device: &str,
    m: usize,
    k: i64,
    max_iter: Option<i64>,
    precision: f64,
    iterations: bool,
    index_bits: u32,
    dtype: &str,
) -> PyResult<&'static str> {
    guard(|| {
        let device = match device {
            "cpu" => Device::Cpu,
            "cuda" => Device::Gpu,
            other => return Err(value_error(format!("device '{other}': expected cpu or cuda"))),
        };
        let dtype = dtype_named(dtype)?;
        let ask = Ask { algo, device, k, max_iter, precision, iterations, index_bits, dtype };
        let (algorithm, _) = ask.check(m)?;
        Ok(algorithm.name())
    })
}

/// The outputs of [`select`]: `(N, k)` values, `(N, k)` indices, `(N,)` iteration counts.
type Outputs<'py> = (Bound<'py, PyAny>, Bound<'py, PyAny>, Option<Bound<'py, PyArray1<i32>>>);
/// [`Outputs`] with the values still in Rust, as elements of `E`.
type Selected<'py, E> = (Array2<E>, Bound<'py, PyAny>, Option<Bound<'py, PyArray1<i32>>>);

/// Row-wise top-k of the 2-D array `x` (rows along the last axis, any strides) with the
/// registry's `algo`. The interpreter is detached while the rows are selected (rayon, every
/// core); values come back in the input's dtype (as `uint16` bits for float16 and bfloat16,
/// whose input is their bits too: see the module docs), indices as int64 (`index_bits=64`)
/// or int32, iteration counts as int32.
#[pyfunction]
#[pyo3(signature = (
    x, k, algo, largest, sorted, max_iter, precision, iterations, index_bits, dtype = "float32"
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn select<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyUntypedArray>,
    k: i64,
    algo: &str,
    largest: bool,
    sorted: bool,
    max_iter: Option<i64>,
    precision: f64,
    iterations: bool,
    index_bits: u32,
    dtype: &str,
) -> PyResult<Outputs<'py>> {
    guard(|| {
        if x.ndim() != 2 {
            return Err(value_error(format!("expected a 2-D array of rows, got {}-D", x.ndim())));
        }
        let dtype = dtype_named(dtype)?;
        let element = x.dtype();
        let device = Device::Cpu;
        let ask = Ask { algo, device, k, max_iter, precision, iterations, index_bits, dtype };
        let opts = Options { mode: mode(largest), sorted };
        if dtype == Dtype::Float32 {
            if !element.is_equiv_to(&numpy::dtype::<f32>(py)) {
                return Err(PyTypeError::new_err(unsupported_dtype(&element.to_string(), true)));
            }
            let x = x.cast::<PyArray2<f32>>()?.readonly();
            let (values, indices, its) = run(py, x.as_array(), &ask, opts)?;
            return Ok((PyArray2::from_owned_array(py, values).into_any(), indices, its));
        }
        if !element.is_equiv_to(&numpy::dtype::<u16>(py)) {
            return Err(PyTypeError::new_err(format!(
                "{dtype} rows are passed as a uint16 array of their bit patterns, got dtype \
                 {element} (rtopk.topk does this)"
            )));
        }
        let x = x.cast::<PyArray2<u16>>()?.readonly();
        let bits = x.as_array();
        match dtype {
            Dtype::Float16 => run16(py, reinterpret::<f16>(bits), &ask, opts),
            _ => run16(py, reinterpret::<bf16>(bits), &ask, opts),
        }
    })
}

/// [`run`] of 16-bit rows, the values returned as their bit patterns.
fn run16<'py, E: Float<Key = u16>>(
    py: Python<'py>,
    view: ArrayView2<'_, E>,
    ask: &Ask<'_>,
    opts: Options,
) -> PyResult<Outputs<'py>> {
    let (values, indices, its) = run(py, view, ask, opts)?;
    let values = detached(py, || convert(values.view(), |v| v.to_bits()))?;
    Ok((PyArray2::from_owned_array(py, values).into_any(), indices, its))
}

/// The selection of [`select`] on `view`, detached: values in `E`, indices at the width asked
/// for, iteration counts when asked for.
fn run<'py, E: Float>(
    py: Python<'py>,
    view: ArrayView2<'_, E>,
    ask: &Ask<'_>,
    opts: Options,
) -> PyResult<Selected<'py, E>> {
    let (algorithm, k) = ask.check(view.ncols())?;
    let (iterations, index_bits) = (ask.iterations, ask.index_bits);
    let (values, indices, its) = detached(py, || {
        let out: Selection<E> = algorithm.select_as(view, k, opts)?;
        let out = out.topk;
        let its = match (iterations, out.iterations) {
            (true, Some(it)) => Some(convert(it.view(), |v| v as i32)?),
            _ => None,
        };
        let indices = match index_bits {
            32 => Index::I32(convert(out.indices.view(), |i| i as i32)?),
            _ => Index::I64(convert(out.indices.view(), i64::from)?),
        };
        Ok((out.values, indices, its))
    })?;
    let indices = match indices {
        Index::I32(a) => PyArray2::from_owned_array(py, a).into_any(),
        Index::I64(a) => PyArray2::from_owned_array(py, a).into_any(),
    };
    let its = its.map(|a| PyArray1::from_owned_array(py, a));
    Ok((values, indices, its))
}

/// The 16-bit floats whose bit patterns `bits` holds, read in place (no copy).
#[allow(unsafe_code)]
fn reinterpret<E: Float<Key = u16>>(bits: ArrayView2<'_, u16>) -> ArrayView2<'_, E> {
    // `cast` keeps the shape and the strides (in elements); it checks that the sizes agree.
    let raw = bits.raw_view().cast::<E>();
    // SAFETY: E (`Float<Key = u16>`: half::f16 or half::bf16) is `#[repr(transparent)]` over
    // u16, so it has u16's size and alignment and every bit pattern is a valid E; the view
    // covers exactly the elements of `bits` and borrows it for the same lifetime, read-only.
    unsafe { raw.deref_into_view() }
}

/// The `TypeError` message for an input of dtype `name` (the same for arrays and tensors):
/// what `rtopk.topk` takes, or, with `sixteen_bit` false, what the simulator (`rtopk.sim`,
/// `rtopk.trace`) takes.
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
            "the warp simulator takes float32 rows only (for now); got dtype {name} (convert \
             with .astype(numpy.float32) or .float())"
        )
    }
}

/// Indices at the width asked for.
enum Index {
    I32(Array2<i32>),
    I64(Array2<i64>),
}

/// `a` converted element by element (indices fit: M <= 2^31 for int32, checked first; counts
/// are at most 64), allocated fallibly: the output's size is the caller's.
fn convert<T: Copy, U, D: Dimension>(
    a: ArrayView<'_, T, D>,
    f: impl Fn(T) -> U,
) -> Result<Array<U, D>, Error> {
    let v = try_map(a.iter().copied(), f)?;
    Array::from_shape_vec(a.raw_dim(), v)
        .map_err(|_| TopKError::TooLarge { what: "output", n: a.len(), m: 1 }.into())
}

/// `f` of every item of `v`, in a vector allocated fallibly.
pub(crate) fn try_map<T, U>(
    v: impl ExactSizeIterator<Item = T>,
    f: impl Fn(T) -> U,
) -> Result<Vec<U>, Error> {
    let mut out = Vec::new();
    out.try_reserve_exact(v.len()).map_err(|_| TopKError::TooLarge {
        what: "output",
        n: v.len(),
        m: 1,
    })?;
    out.extend(v.map(f));
    Ok(out)
}
