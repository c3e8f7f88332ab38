//! `rtopk.grouped_topk`: grouped selection (docs/contract.md §8, the router of
//! mixture-of-experts models) through the library's `rtopk::grouped`, on a 2-D NumPy array
//! (torch CPU tensors arrive as NumPy views of their storage) with the interpreter detached,
//! and on torch's CUDA tensors (raw device addresses, torch's current stream).
//!
//! Element types as in [`crate::select`]: a float32 array as it is; float16 and bfloat16 as
//! `uint16` arrays of their bit patterns, the type named by `dtype`, read in place and their
//! values returned as bits. Indices come back as int64 on the host.

use ndarray::{Array2, ArrayView2};
use numpy::{PyArray2, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use rtopk::cuda::{GroupedBuffers, Shape};
use rtopk::grouped::{
    GroupScore, Grouped, GroupedElement, check_grouped_raw, grouped_raw, grouped_ready,
    select_grouped,
};
use rtopk::{Dtype, Error, IndexWidth, KernelElement, bf16, f16};

use crate::engine;
use crate::errors::{detached, guard, to_py, value_error};
use crate::request::integer;
use crate::select::{reinterpret, try_map};

/// The outputs of [`grouped_select`]: `(N, k)` values (float32, or the 16-bit type's bits as
/// uint16) and `(N, k)` int64 indices.
type Outputs<'py> = (Bound<'py, PyAny>, Bound<'py, PyArray2<i64>>);

/// The grouped selection of the 2-D array `x` (rows along the last axis, any strides) of the
/// element type `dtype` (`"float32"`: a float32 array; `"float16"`, `"bfloat16"`: a uint16
/// array of bit patterns): `k` experts per row from the best `top_groups` of `groups` groups
/// scored by `score` (`"max"` or `"sum2"`), by `algo` (`auto`, `reference`, `sim`, `cuda`).
/// The interpreter is detached while the rows are selected.
#[pyfunction]
#[pyo3(signature = (x, dtype, k, groups, top_groups, score, algo))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn grouped_select<'py>(
    x: &Bound<'py, PyUntypedArray>,
    dtype: &str,
    k: &Bound<'py, PyAny>,
    groups: &Bound<'py, PyAny>,
    top_groups: &Bound<'py, PyAny>,
    score: &str,
    algo: &str,
) -> PyResult<Outputs<'py>> {
    guard(|| {
        let g = grouped_of(k, groups, top_groups, score)?;
        if x.ndim() != 2 {
            return Err(value_error(format!("expected a 2-D array of rows, got {}-D", x.ndim())));
        }
        match float_named(dtype)? {
            Dtype::Float32 => run32(x, &g, algo),
            Dtype::Float16 => run16::<f16>(x, dtype, &g, algo),
            _ => run16::<bf16>(x, dtype, &g, algo),
        }
    })
}

/// [`grouped_select`] of a float32 array, the values returned as float32.
fn run32<'py>(x: &Bound<'py, PyUntypedArray>, g: &Grouped, algo: &str) -> PyResult<Outputs<'py>> {
    let (py, element) = (x.py(), x.dtype());
    if !element.is_equiv_to(&numpy::dtype::<f32>(py)) {
        return Err(PyTypeError::new_err(format!(
            "float32 scores are passed as a float32 array, got dtype {element}"
        )));
    }
    let x = x.cast::<PyArray2<f32>>()?.readonly();
    let view = x.as_array();
    let (values, indices) = detached(py, || run(view, g, algo, |v| v))?;
    Ok((PyArray2::from_owned_array(py, values).into_any(), PyArray2::from_owned_array(py, indices)))
}

/// [`grouped_select`] of 16-bit rows (their bits, read in place), the values returned as
/// their bits.
fn run16<'py, E: GroupedElement + KernelElement<Key = u16>>(
    x: &Bound<'py, PyUntypedArray>,
    dtype: &str,
    g: &Grouped,
    algo: &str,
) -> PyResult<Outputs<'py>> {
    let (py, element) = (x.py(), x.dtype());
    if !element.is_equiv_to(&numpy::dtype::<u16>(py)) {
        return Err(PyTypeError::new_err(format!(
            "{dtype} scores are passed as a uint16 array of their bit patterns, got dtype \
             {element} (rtopk.grouped_topk does this)"
        )));
    }
    let x = x.cast::<PyArray2<u16>>()?.readonly();
    let view = reinterpret::<E>(x.as_array());
    let (values, indices) = detached(py, || run(view, g, algo, |v: E| v.to_bits()))?;
    Ok((PyArray2::from_owned_array(py, values).into_any(), PyArray2::from_owned_array(py, indices)))
}

/// The library's grouped selection of `x`, its values mapped by `value` (to what Python
/// receives), its indices as int64; run detached.
fn run<E: GroupedElement, V>(
    x: ArrayView2<'_, E>,
    g: &Grouped,
    algo: &str,
    value: impl Fn(E) -> V,
) -> Result<(Array2<V>, Array2<i64>), Error> {
    let out = select_grouped(x, g, algo)?;
    let shape = out.indices.dim();
    let values = try_map(out.values.iter().copied(), value)?;
    let indices = try_map(out.indices.iter().copied(), i64::from)?;
    let too_large = |_| engine::too_large("output", shape.0, shape.1);
    Ok((
        Array2::from_shape_vec(shape, values).map_err(too_large)?,
        Array2::from_shape_vec(shape, indices).map_err(too_large)?,
    ))
}

/// The grouped selection of [`grouped_select`] on `n` contiguous rows of `m` elements of
/// `dtype` (float32, float16 or bfloat16) on CUDA device `device`, queued on the stream whose
/// handle is `stream` (torch's current stream of that device). `pointers` are the device
/// addresses `(x, values, indices)`: the rows (`n * m` of the dtype), the values (`n * k` of
/// it) and the indices (`n * k` of `index_bits` 32 or 64: uint32 or int64).
///
/// Every argument is checked first (`rtopk::grouped::check_grouped_raw`), before any device
/// is opened; nothing is launched when `n` or `k` is 0 (a call with `n = 0` is a check
/// only). Nothing is allocated, copied or synchronised: the call queues one launch, so it
/// can be captured in a CUDA graph once its kernel is built (the first call of a unit — a
/// dtype, an index width and a row width's experts per lane — on a device builds it with
/// NVRTC, with the interpreter released).
#[pyfunction]
#[pyo3(signature = (
    dtype, n, m, k, groups, top_groups, score, index_bits, pointers, device, stream
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn grouped_launch(
    py: Python<'_>,
    dtype: &str,
    n: &Bound<'_, PyAny>,
    m: &Bound<'_, PyAny>,
    k: &Bound<'_, PyAny>,
    groups: &Bound<'_, PyAny>,
    top_groups: &Bound<'_, PyAny>,
    score: &str,
    index_bits: &Bound<'_, PyAny>,
    pointers: (u64, u64, u64),
    device: &Bound<'_, PyAny>,
    stream: u64,
) -> PyResult<()> {
    guard(|| {
        let g = grouped_of(k, groups, top_groups, score)?;
        let shape = Shape { n: integer("n", n)?, m: integer("m", m)?, dtype: float_named(dtype)? };
        let index = match integer("index_bits", index_bits)? {
            32 => IndexWidth::U32,
            64 => IndexWidth::I64,
            other => return Err(value_error(format!("index_bits must be 32 or 64, got {other}"))),
        };
        let ordinal = integer("device", device)?;
        check_grouped_raw(&g, shape).map_err(to_py)?;
        if shape.n == 0 || g.k == 0 {
            return Ok(());
        }
        let (x, values, indices) = pointers;
        let bufs = GroupedBuffers { x, values, indices };
        // SAFETY: rtopk.grouped_topk passes the addresses of contiguous torch tensors it
        // allocated on CUDA device `ordinal` (n*m scores of `dtype`, n*k values of it, n*k
        // indices of `index`'s width), held alive by the caller while torch's stream `stream`
        // of that device — whose context is the device's primary context, torch's and the
        // library's — runs the queued launch; the caching allocator does not reuse them
        // before it ends. The selection was checked against the shape above.
        #[allow(unsafe_code)]
        let launch = move || unsafe { grouped_raw(&g, shape, index, bufs, (ordinal, stream)) };
        if grouped_ready(&g, shape, index, ordinal).map_err(to_py)? {
            // queued, not run: attached, a launch costs less than releasing the interpreter
            return launch().map_err(to_py);
        }
        // the first launch of this unit builds its kernel (NVRTC): other Python threads run
        // meanwhile
        detached(py, launch)
    })
}

/// The selection the arguments name (its checks against the rows are the library's); a
/// `ValueError` for a score other than `"max"` or `"sum2"`.
fn grouped_of(
    k: &Bound<'_, PyAny>,
    groups: &Bound<'_, PyAny>,
    top_groups: &Bound<'_, PyAny>,
    score: &str,
) -> PyResult<Grouped> {
    let score = GroupScore::from_name(score).ok_or_else(|| {
        value_error(format!("group_score must be 'max' or 'sum2', got '{score}'"))
    })?;
    Ok(Grouped {
        k: integer("k", k)?,
        groups: integer("num_groups", groups)?,
        top_groups: integer("topk_groups", top_groups)?,
        score,
    })
}

/// The element type named `name` if a grouped selection takes it (float32, float16,
/// bfloat16); a `TypeError` otherwise.
fn float_named(name: &str) -> PyResult<Dtype> {
    match Dtype::from_name(name) {
        Some(d) if d.is_kernel_float() => Ok(d),
        _ => Err(PyTypeError::new_err(format!(
            "a grouped selection takes float32, float16 or bfloat16 scores, not {name} \
             (convert with .astype(numpy.float32) or .float())"
        ))),
    }
}
