//! `rtopk.topk` on host memory: a 2-D NumPy array (any strides; torch CPU tensors arrive as
//! NumPy views of their storage) through the library's registry, the interpreter detached.
//!
//! Element types: float32, float64, int8, uint8, int16, int32 and int64 arrays as they are;
//! float16 and bfloat16 as `uint16` arrays of
//! their bit patterns (numpy has no bfloat16 of its own, and a torch bfloat16 tensor has no
//! NumPy view), with the type named by the request's `dtype`. The bits are read in place as `half::f16` /
//! `half::bf16` and the values come back as `uint16` bits, which Python views as the input's
//! dtype: no conversion anywhere.

use ndarray::{Array, Array2, ArrayView, ArrayView2, Dimension};
use numpy::{
    PyArray1, PyArray2, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use rtopk::{
    Dtype, Error, KernelElement, PAD_INDEX, Place, Selection, Value, bf16, f16, registry,
    select as door,
};

use crate::engine;
use crate::errors::{detached, guard, to_py, value_error};
use crate::request::{Request, unsupported_dtype};

/// The registry, as JSON (name, source, summary and capabilities of every algorithm of
/// docs/contract.md §4).
#[pyfunction]
pub(crate) fn algorithms_json() -> PyResult<String> {
    serde_json::to_string(&registry::ALGORITHMS).map_err(|e| to_py(e.into()))
}

/// The outputs of [`select`]: `(N, K)` values, `(N, K)` indices, `(N,)` iteration counts,
/// `(N,)` thresholds.
type Outputs<'py> = (
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
    Option<Bound<'py, PyArray1<i32>>>,
    Option<Bound<'py, PyArray1<f32>>>,
);
/// [`Outputs`] with the values still in Rust, as elements of `E`.
type Selected<'py, E> = (
    Array2<E>,
    Bound<'py, PyAny>,
    Option<Bound<'py, PyArray1<i32>>>,
    Option<Bound<'py, PyArray1<f32>>>,
);

/// Row-wise top-k of the 2-D array `x` (rows along the last axis, any strides) as `request`
/// asks (a host request: device `cpu`), through the library's one `select`. The interpreter
/// is detached while the rows are selected (rayon, every core); values come back in the
/// input's dtype (as `uint16` bits for float16 and bfloat16, whose input is their bits too:
/// see the module docs), indices as int64 or int32 (padding, docs/contract.md §5: -1),
/// iteration counts as int32, thresholds as float32.
#[pyfunction]
pub(crate) fn select<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyUntypedArray>,
    request: &Request,
) -> PyResult<Outputs<'py>> {
    guard(|| {
        if x.ndim() != 2 {
            return Err(value_error(format!("expected a 2-D array of rows, got {}-D", x.ndim())));
        }
        if request.inner.place() != Place::Cpu {
            return Err(PyValueError::new_err(
                "a request for device 'cuda' selects from CUDA tensors, not host arrays",
            ));
        }
        match request.dtype {
            Dtype::Float16 | Dtype::Bfloat16 => {}
            Dtype::Float32 => return run_native::<f32>(x, request),
            Dtype::Float64 => return run_native::<f64>(x, request),
            Dtype::Int8 => return run_native::<i8>(x, request),
            Dtype::Uint8 => return run_native::<u8>(x, request),
            Dtype::Int16 => return run_native::<i16>(x, request),
            Dtype::Int32 => return run_native::<i32>(x, request),
            Dtype::Int64 => return run_native::<i64>(x, request),
        }
        let element = x.dtype();
        if !element.is_equiv_to(&numpy::dtype::<u16>(py)) {
            return Err(PyTypeError::new_err(format!(
                "{} rows are passed as a uint16 array of their bit patterns, got dtype \
                 {element} (rtopk.topk does this)",
                request.dtype.name()
            )));
        }
        let x = x.cast::<PyArray2<u16>>()?.readonly();
        let bits = x.as_array();
        match request.dtype {
            Dtype::Float16 => run16(py, reinterpret::<f16>(bits), request),
            _ => run16(py, reinterpret::<bf16>(bits), request),
        }
    })
}

/// [`run`] of an array of a type NumPy has (all but float16 and bfloat16, which travel as
/// bits), the values returned in it.
fn run_native<'py, E: Value + numpy::Element>(
    x: &Bound<'py, PyUntypedArray>,
    request: &Request,
) -> PyResult<Outputs<'py>> {
    let (py, element) = (x.py(), x.dtype());
    if !element.is_equiv_to(&numpy::dtype::<E>(py)) {
        return Err(PyTypeError::new_err(unsupported_dtype(&element.to_string(), true)));
    }
    let x = x.cast::<PyArray2<E>>()?.readonly();
    let (values, indices, its, threshold) = run(py, x.as_array(), request)?;
    Ok((PyArray2::from_owned_array(py, values).into_any(), indices, its, threshold))
}

/// [`run`] of 16-bit rows, the values returned as their bit patterns.
fn run16<'py, E: KernelElement<Key = u16>>(
    py: Python<'py>,
    view: ArrayView2<'_, E>,
    request: &Request,
) -> PyResult<Outputs<'py>> {
    let (values, indices, its, threshold) = run(py, view, request)?;
    let values = detached(py, || convert(values.view(), |v| v.to_bits()))?;
    Ok((PyArray2::from_owned_array(py, values).into_any(), indices, its, threshold))
}

/// The selection of [`select`] on `view`, detached: values in `E`, indices at the width asked
/// for, iteration counts and thresholds when asked for.
fn run<'py, E: Value>(
    py: Python<'py>,
    view: ArrayView2<'_, E>,
    request: &Request,
) -> PyResult<Selected<'py, E>> {
    let (inner, wanted) = (&request.inner, request.inner.wanted());
    let (values, indices, its, threshold) = detached(py, || {
        let out: Selection<E> = door(view, inner)?;
        let its = match (wanted.iterations, out.topk.iterations) {
            (true, Some(it)) => Some(convert(it.view(), |v| v as i32)?),
            _ => None,
        };
        let threshold = if wanted.threshold { out.threshold } else { None };
        // The padding index (docs/contract.md §5) is -1 at either width: `as i32` wraps
        // u32::MAX to -1, and every other index fits (int32 only for M <= 2^31, checked).
        let indices = match inner.index_width().bits() {
            32 => Index::I32(convert(out.topk.indices.view(), |i| i as i32)?),
            _ => Index::I64(convert(out.topk.indices.view(), |i| {
                if i == PAD_INDEX { -1 } else { i64::from(i) }
            })?),
        };
        Ok((out.topk.values, indices, its, threshold))
    })?;
    let indices = match indices {
        Index::I32(a) => PyArray2::from_owned_array(py, a).into_any(),
        Index::I64(a) => PyArray2::from_owned_array(py, a).into_any(),
    };
    let its = its.map(|a| PyArray1::from_owned_array(py, a));
    let threshold = threshold.map(|a| PyArray1::from_owned_array(py, a));
    Ok((values, indices, its, threshold))
}

/// The 16-bit floats whose bit patterns `bits` holds, read in place (no copy).
#[allow(unsafe_code)]
pub(crate) fn reinterpret<E: KernelElement<Key = u16>>(
    bits: ArrayView2<'_, u16>,
) -> ArrayView2<'_, E> {
    // `cast` keeps the shape and the strides (in elements); it checks that the sizes agree.
    let raw = bits.raw_view().cast::<E>();
    // SAFETY: E (`KernelElement<Key = u16>`: half::f16 or half::bf16) is `#[repr(transparent)]` over
    // u16, so it has u16's size and alignment and every bit pattern is a valid E; the view
    // covers exactly the elements of `bits` and borrows it for the same lifetime, read-only.
    unsafe { raw.deref_into_view() }
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
    Array::from_shape_vec(a.raw_dim(), v).map_err(|_| engine::too_large("output", a.len(), 1))
}

/// `f` of every item of `v`, in a vector allocated fallibly.
pub(crate) fn try_map<T, U>(
    v: impl ExactSizeIterator<Item = T>,
    f: impl Fn(T) -> U,
) -> Result<Vec<U>, Error> {
    let mut out = Vec::new();
    out.try_reserve_exact(v.len()).map_err(|_| engine::too_large("output", v.len(), 1))?;
    out.extend(v.map(f));
    Ok(out)
}
