//! `rtopk.jax`: row-wise top-k of JAX arrays as an XLA FFI custom call (`jax.ffi`). Two
//! handlers of XLA's typed FFI, one for its CPU platform (the library's row-wise driver on host
//! buffers) and one for CUDA (the launch program on XLA's stream, over XLA's device buffers),
//! both building one request through the library's door. Python registers their addresses
//! (`jax.ffi.pycapsule`) and calls the target with one operand, two results — values in the
//! operand's type and `int32` indices, `(..., k)` — and the attributes `k`, `largest` and
//! `sorted` as 64-bit integers, and `recall` (a float, docs/contract.md §6) where the caller
//! gave a recall target.
//!
//! Reading a call frame dereferences the pointers XLA hands over: those reads carry the
//! crate's `#[allow(unsafe_code)]`, each with its `// SAFETY:` line, and nothing crosses back
//! into XLA but a null pointer (success) or an error XLA created.

mod abi;

use std::ffi::{CString, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};

use ndarray::ArrayView2;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rtopk::cuda::Shape;
use rtopk::{
    AUTO_CPU, AUTO_GPU, Dtype, IndexWidth, KernelElement, Place, Recall, Request, bf16, f16,
};

use crate::engine;
use abi::{Api, Attrs, Buffer, CallFrame, ErrorPtr, List};

/// Where a handler runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Cpu,
    Cuda,
}

/// A call's failure: its message and the XLA error code it is reported with.
struct Failure {
    code: i32,
    message: String,
}

impl Failure {
    fn invalid(message: impl Into<String>) -> Self {
        Self { code: abi::INVALID_ARGUMENT, message: message.into() }
    }
}

impl From<rtopk::Error> for Failure {
    fn from(e: rtopk::Error) -> Self {
        let code = if e.is_user_error() { abi::INVALID_ARGUMENT } else { abi::INTERNAL };
        Self { code, message: e.to_string() }
    }
}

/// What one call asks for, read off its frame: rows of `m` elements (the last axis), `n` of
/// them (the product of the others), the request, and the three buffers' addresses.
struct Call {
    shape: Shape,
    request: Request,
    x: *const c_void,
    values: *mut c_void,
    indices: *mut c_void,
}

/// The address of the XLA FFI handler for `platform` (`"cpu"` or `"cuda"`), which
/// `rtopk.jax` wraps with `jax.ffi.pycapsule` and registers with `jax.ffi.register_ffi_target`.
#[pyfunction]
pub(crate) fn jax_handler(platform: &str) -> PyResult<usize> {
    handler_address(platform).ok_or_else(|| {
        PyValueError::new_err(format!("no XLA handler for platform '{platform}': 'cpu' or 'cuda'"))
    })
}

fn handler_address(platform: &str) -> Option<usize> {
    let handler: unsafe extern "C" fn(*mut CallFrame) -> ErrorPtr = match platform {
        "cpu" => topk_cpu,
        "cuda" => topk_cuda,
        _ => return None,
    };
    Some(handler as usize)
}

/// The CPU platform's handler (`XLA_FFI_Handler`).
///
/// # Safety
/// XLA calls it with a valid call frame that outlives the call.
#[allow(unsafe_code)]
unsafe extern "C" fn topk_cpu(frame: *mut CallFrame) -> ErrorPtr {
    // SAFETY: XLA passes a valid frame for the duration of the call (this function's contract).
    unsafe { handle(frame, Target::Cpu) }
}

/// The CUDA platform's handler (`XLA_FFI_Handler`).
///
/// # Safety
/// As [`topk_cpu`].
#[allow(unsafe_code)]
unsafe extern "C" fn topk_cuda(frame: *mut CallFrame) -> ErrorPtr {
    // SAFETY: as above.
    unsafe { handle(frame, Target::Cuda) }
}

/// Answers a metadata query or runs the call; never unwinds into XLA.
///
/// # Safety
/// `frame` is XLA's valid call frame for this call.
#[allow(unsafe_code)]
unsafe fn handle(frame: *mut CallFrame, target: Target) -> ErrorPtr {
    // SAFETY: XLA's frame is valid and unaliased for the call (the caller's contract).
    let frame = unsafe { &mut *frame };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the frame and everything it points to are valid for the call.
        if let Some(answered) = unsafe { answer_metadata(frame) } {
            return answered;
        }
        if frame.stage != abi::STAGE_EXECUTE {
            return Err(Failure::invalid(format!("rtopk: stage {} is not 'execute'", frame.stage)));
        }
        // SAFETY: as above.
        let call = unsafe { read_call(frame, target) }?;
        // SAFETY: the buffers of the frame hold the shapes read_call checked.
        unsafe { run(frame, target, &call) }
    }));
    let failure = match outcome {
        Ok(Ok(())) => return std::ptr::null_mut(),
        Ok(Err(failure)) => failure,
        Err(_) => Failure { code: abi::INTERNAL, message: "rtopk: internal panic".to_string() },
    };
    // SAFETY: the frame's API table is XLA's, valid for the call.
    unsafe { error(frame.api, &failure) }
}

/// `Some(Ok)` after filling in the handler's API version and traits when XLA asks for them
/// (a frame whose first extension is the metadata one), `None` for an ordinary call.
///
/// # Safety
/// The frame's extension chain is XLA's, valid for the call.
#[allow(unsafe_code)]
unsafe fn answer_metadata(frame: &CallFrame) -> Option<Result<(), Failure>> {
    let ext = frame.extension_start;
    // SAFETY: a non-null extension pointer of a valid frame points to a valid extension.
    if ext.is_null() || unsafe { (*ext).kind } != abi::EXTENSION_METADATA {
        return None;
    }
    // SAFETY: an extension of the metadata kind is an `XLA_FFI_Metadata_Extension`.
    let metadata = unsafe { (*(ext as *const abi::MetadataExtension)).metadata };
    // SAFETY: XLA's metadata struct, which it sized (checked before writing).
    let metadata = unsafe { metadata.as_mut() }?;
    if metadata.struct_size < abi::METADATA_SIZE {
        return Some(Err(Failure::invalid("rtopk: XLA's handler metadata is too old")));
    }
    metadata.api_version = abi::ApiVersion {
        struct_size: abi::API_VERSION_SIZE,
        extension_start: std::ptr::null_mut(),
        major: abi::API_MAJOR,
        minor: abi::API_MINOR,
    };
    // not command-buffer compatible: a launch may allocate scratch space and compile kernels
    metadata.traits = 0;
    Some(Ok(()))
}

/// The buffer at `i` of `list` (an argument or a result).
///
/// # Safety
/// `list` is a valid list of XLA's frame.
#[allow(unsafe_code)]
unsafe fn buffer<'a>(list: &'a List, i: usize, what: &str) -> Result<&'a Buffer, Failure> {
    let size = usize::try_from(list.size).unwrap_or(0);
    if i >= size {
        return Err(Failure::invalid(format!("rtopk: the call has no {what}")));
    }
    // SAFETY: `types` and `items` have `size` entries; i < size.
    let (kind, item) = unsafe { (*list.types.add(i), *list.items.add(i)) };
    if kind != abi::BUFFER {
        return Err(Failure::invalid(format!("rtopk: the {what} is not a buffer")));
    }
    // SAFETY: an item of buffer type is an `XLA_FFI_Buffer` valid for the call.
    Ok(unsafe { &*(item as *const Buffer) })
}

/// The dimensions of `b`.
///
/// # Safety
/// `b` is a valid buffer of XLA's frame.
#[allow(unsafe_code)]
unsafe fn dims(b: &Buffer) -> &[i64] {
    let rank = usize::try_from(b.rank).unwrap_or(0);
    if rank == 0 {
        return &[];
    }
    // SAFETY: `dims` has `rank` entries for the call.
    unsafe { std::slice::from_raw_parts(b.dims, rank) }
}

/// The scalar attribute `name`, or `None` where the call has none of that name.
///
/// # Safety
/// `attrs` are the valid attributes of XLA's frame.
#[allow(unsafe_code)]
unsafe fn scalar<'a>(attrs: &'a Attrs, name: &str) -> Result<Option<&'a abi::Scalar>, Failure> {
    for i in 0..usize::try_from(attrs.size).unwrap_or(0) {
        // SAFETY: `names`, `types` and `attrs` have `size` entries; each name is a byte span.
        let (span, kind, value) =
            unsafe { (&**attrs.names.add(i), *attrs.types.add(i), *attrs.attrs.add(i)) };
        // SAFETY: a byte span of `len` bytes at `ptr`.
        let key = unsafe { std::slice::from_raw_parts(span.ptr, span.len) };
        if key != name.as_bytes() {
            continue;
        }
        if kind != abi::ATTR_SCALAR {
            return Err(Failure::invalid(format!("rtopk: attribute '{name}' is not a scalar")));
        }
        // SAFETY: a scalar attribute is an `XLA_FFI_Scalar` whose value has its dtype, valid
        // for the call as the frame is.
        return Ok(Some(unsafe { &*(value as *const abi::Scalar) }));
    }
    Ok(None)
}

/// The integer attribute `name` (a 64-bit or 32-bit scalar).
///
/// # Safety
/// `attrs` are the valid attributes of XLA's frame.
#[allow(unsafe_code)]
unsafe fn attribute(attrs: &Attrs, name: &str) -> Result<i64, Failure> {
    // SAFETY: the caller's attributes (this function's contract).
    let Some(scalar) = (unsafe { scalar(attrs, name) })? else {
        return Err(Failure::invalid(format!("rtopk: the call has no attribute '{name}'")));
    };
    match scalar.dtype {
        // SAFETY: the value of an S64 scalar is an i64.
        abi::S64 => Ok(unsafe { *(scalar.value as *const i64) }),
        // SAFETY: the value of an S32 scalar is an i32.
        abi::S32 => Ok(i64::from(unsafe { *(scalar.value as *const i32) })),
        other => Err(Failure::invalid(format!(
            "rtopk: attribute '{name}' has XLA type {other}, expected an integer"
        ))),
    }
}

/// The float attribute `name` (a 64-bit or 32-bit scalar), or `None` where the call has none.
///
/// # Safety
/// `attrs` are the valid attributes of XLA's frame.
#[allow(unsafe_code)]
unsafe fn float_attribute(attrs: &Attrs, name: &str) -> Result<Option<f64>, Failure> {
    // SAFETY: the caller's attributes (this function's contract).
    let Some(scalar) = (unsafe { scalar(attrs, name) })? else {
        return Ok(None);
    };
    match scalar.dtype {
        // SAFETY: the value of an F64 scalar is an f64.
        abi::F64 => Ok(Some(unsafe { *(scalar.value as *const f64) })),
        // SAFETY: the value of an F32 scalar is an f32.
        abi::F32 => Ok(Some(f64::from(unsafe { *(scalar.value as *const f32) }))),
        other => Err(Failure::invalid(format!(
            "rtopk: attribute '{name}' has XLA type {other}, expected a float"
        ))),
    }
}

/// The element type of an XLA buffer type.
fn dtype_of(xla: i32) -> Option<Dtype> {
    match xla {
        abi::F32 => Some(Dtype::Float32),
        abi::F16 => Some(Dtype::Float16),
        abi::BF16 => Some(Dtype::Bfloat16),
        _ => None,
    }
}

/// Rows and their width of an operand's dimensions: the last axis is the row.
fn rows_of(dims: &[i64]) -> Result<(usize, usize), Failure> {
    let as_size = |d: i64| usize::try_from(d).map_err(|_| Failure::invalid("rtopk: bad shape"));
    let (&m, rest) = dims.split_last().ok_or_else(|| Failure::invalid("rtopk: a 0-d operand"))?;
    let mut n = 1usize;
    for &d in rest {
        n = n.checked_mul(as_size(d)?).ok_or_else(|| Failure::invalid("rtopk: too many rows"))?;
    }
    Ok((n, as_size(m)?))
}

/// The call of `frame`: its buffers checked against each other, its request built and checked.
///
/// # Safety
/// `frame` is XLA's valid call frame.
#[allow(unsafe_code)]
unsafe fn read_call(frame: &CallFrame, target: Target) -> Result<Call, Failure> {
    // SAFETY: the frame's lists and attributes are valid for the call.
    let (x, values, indices) = unsafe {
        (
            buffer(&frame.args, 0, "operand")?,
            buffer(&frame.rets, 0, "values result")?,
            buffer(&frame.rets, 1, "indices result")?,
        )
    };
    // SAFETY: as above.
    let (k, largest, sorted, recall) = unsafe {
        (
            attribute(&frame.attrs, "k")?,
            attribute(&frame.attrs, "largest")?,
            attribute(&frame.attrs, "sorted")?,
            float_attribute(&frame.attrs, "recall")?,
        )
    };
    let dtype = dtype_of(x.dtype).ok_or_else(|| {
        Failure::invalid("rtopk: the operand is not float32, float16 or bfloat16")
    })?;
    let k = usize::try_from(k).map_err(|_| Failure::invalid("rtopk: k < 0"))?;
    // SAFETY: the three buffers are valid.
    let (x_dims, v_dims, i_dims) = unsafe { (dims(x), dims(values), dims(indices)) };
    let (n, m) = rows_of(x_dims)?;
    let expected: Vec<i64> = x_dims[..x_dims.len() - 1].iter().copied().chain([k as i64]).collect();
    if values.dtype != x.dtype
        || indices.dtype != abi::S32
        || v_dims != expected
        || i_dims != expected
    {
        return Err(Failure::invalid(format!(
            "rtopk: the results must be (values of the operand's type, int32 indices) of shape \
             {expected:?}"
        )));
    }
    let (algo, place) = match target {
        Target::Cpu => (AUTO_CPU, Place::Cpu),
        // SAFETY: the frame's API table and context are valid for the call.
        Target::Cuda => (AUTO_GPU, Place::Cuda(unsafe { device_ordinal(frame) })),
    };
    let mut builder = Request::builder(algo)
        .k(k)
        .largest(largest != 0)
        .sorted(sorted != 0)
        .index_width(IndexWidth::U32)
        .place(place);
    if let Some(r) = recall {
        builder = builder.recall(Recall::new(r)?);
    }
    let request = builder.build()?;
    request.check(n, m, dtype)?;
    let shape = Shape { n, m, dtype };
    Ok(Call { shape, request, x: x.data, values: values.data, indices: indices.data })
}

/// Runs `call` where its target is.
///
/// # Safety
/// The call's buffers are XLA's, of the shapes [`read_call`] checked, valid for the call.
#[allow(unsafe_code)]
unsafe fn run(frame: &CallFrame, target: Target, call: &Call) -> Result<(), Failure> {
    let Shape { n, m, dtype } = call.shape;
    if n == 0 || call.request.k().width() == 0 || m == 0 {
        return Ok(());
    }
    match target {
        Target::Cpu => {
            let _mode = SubnormalsKept::new();
            // SAFETY: host buffers of the checked shapes (this function's contract).
            unsafe {
                match dtype {
                    Dtype::Float32 => select_host::<f32>(call),
                    Dtype::Float16 => select_host::<f16>(call),
                    Dtype::Bfloat16 => select_host::<bf16>(call),
                    // read_call takes the three float types only (dtype_of)
                    other => Err(Failure::invalid(format!("rtopk: {} operand", other.name()))),
                }
            }
        }
        Target::Cuda => {
            // SAFETY: the frame's API table and context are valid for the call.
            let stream = unsafe { stream(frame) }?;
            let ptrs = engine::Pointers {
                x: call.x as u64,
                values: call.values as u64,
                indices: call.indices as u64,
                ..engine::Pointers::default()
            };
            // SAFETY: XLA's device buffers of the request's shapes, valid until the work on
            // XLA's stream of that device (its primary context) completes; u32 indices are the
            // int32 result's bits (M < 2^31, checked by the request).
            unsafe { engine::gpu_queue(&call.request, call.shape, ptrs, stream) }?;
            Ok(())
        }
    }
}

/// XLA's CPU threads flush subnormals to zero (MXCSR's FTZ and DAZ bits set), but the order of
/// docs/contract.md §1 ranks subnormals as the numbers they are, and the bisection's midpoints
/// are float arithmetic: while this guard lives the calling thread keeps subnormals (threads it
/// starts, rayon's pool among them, inherit that mode); dropping it restores XLA's mode.
struct SubnormalsKept {
    #[cfg(target_arch = "x86_64")]
    saved: u32,
}

#[cfg(target_arch = "x86_64")]
const FTZ_DAZ: u32 = (1 << 15) | (1 << 6);

impl SubnormalsKept {
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code, deprecated)]
    fn new() -> Self {
        use std::arch::x86_64::{_mm_getcsr, _mm_setcsr};
        // SAFETY: MXCSR (SSE, always present on x86_64) is this thread's float mode; only its
        // flush bits change, and Drop puts the saved value back.
        let saved = unsafe { _mm_getcsr() };
        // SAFETY: as above.
        unsafe { _mm_setcsr(saved & !FTZ_DAZ) };
        Self { saved }
    }

    /// Elsewhere XLA's CPU threads keep IEEE subnormals (nothing to change).
    #[cfg(not(target_arch = "x86_64"))]
    fn new() -> Self {
        Self {}
    }
}

impl Drop for SubnormalsKept {
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code, deprecated)]
    fn drop(&mut self) {
        // SAFETY: restores the calling thread's own saved MXCSR.
        unsafe { std::arch::x86_64::_mm_setcsr(self.saved) };
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn drop(&mut self) {}
}

/// The door's selection of host rows, written into XLA's result buffers.
///
/// # Safety
/// `call`'s buffers are host memory of its shapes, `E` its element type.
#[allow(unsafe_code)]
unsafe fn select_host<E: KernelElement>(call: &Call) -> Result<(), Failure> {
    let Shape { n, m, .. } = call.shape;
    let k = call.request.k().width();
    // SAFETY: an `(n, m)` row-major host array of E (XLA's default layout for the operand).
    let x = unsafe { ArrayView2::from_shape_ptr((n, m), call.x as *const E) };
    let out = rtopk::select(x, &call.request)?;
    // SAFETY: the results are `(n, k)` host arrays of E and i32, not aliased by the operand.
    let (values, indices) = unsafe {
        (
            std::slice::from_raw_parts_mut(call.values as *mut E, n * k),
            std::slice::from_raw_parts_mut(call.indices as *mut i32, n * k),
        )
    };
    for (dst, src) in values.iter_mut().zip(out.topk.values.iter()) {
        *dst = *src;
    }
    // indices are below M < 2^31 (checked by the request for a 32-bit index width)
    for (dst, &src) in indices.iter_mut().zip(out.topk.indices.iter()) {
        *dst = src as i32;
    }
    Ok(())
}

/// XLA's stream for the call (`XLA_FFI_Stream_Get`).
///
/// # Safety
/// The frame's API table and execution context are valid for the call.
#[allow(unsafe_code)]
unsafe fn stream(frame: &CallFrame) -> Result<u64, Failure> {
    // SAFETY: XLA's API table, valid for the call.
    let api = unsafe { &*frame.api };
    let get = api.stream_get.ok_or_else(|| Failure::invalid("rtopk: XLA has no stream"))?;
    let mut args = abi::StreamGetArgs {
        struct_size: abi::STREAM_GET_ARGS_SIZE,
        extension_start: std::ptr::null_mut(),
        ctx: frame.ctx,
        stream: std::ptr::null_mut(),
    };
    // SAFETY: XLA's function with its own argument struct, fully initialised.
    let err = unsafe { get(&mut args) };
    if !err.is_null() {
        return Err(Failure { code: abi::INTERNAL, message: "rtopk: no XLA stream".into() });
    }
    Ok(args.stream as u64)
}

/// The CUDA device the call runs on (`XLA_FFI_DeviceOrdinal_Get`), or 0 where XLA's API is
/// too old to say (a single-GPU process).
///
/// # Safety
/// As [`stream`].
#[allow(unsafe_code)]
unsafe fn device_ordinal(frame: &CallFrame) -> usize {
    // SAFETY: XLA's API table, valid for the call; the field is read only where its size says
    // it is there.
    let api = unsafe { &*frame.api };
    let Some(get) =
        api.device_ordinal_get.filter(|_| api.struct_size >= abi::API_SIZE_WITH_DEVICE_ORDINAL)
    else {
        return 0;
    };
    let mut args = abi::DeviceOrdinalGetArgs {
        struct_size: abi::DEVICE_ORDINAL_GET_ARGS_SIZE,
        extension_start: std::ptr::null_mut(),
        ctx: frame.ctx,
        device_ordinal: 0,
    };
    // SAFETY: XLA's function with its own argument struct, fully initialised.
    let err = unsafe { get(&mut args) };
    if err.is_null() { usize::try_from(args.device_ordinal).unwrap_or(0) } else { 0 }
}

/// An XLA error carrying `failure` (`XLA_FFI_Error_Create`, which copies the message).
///
/// # Safety
/// `api` is XLA's API table, valid for the call.
#[allow(unsafe_code)]
unsafe fn error(api: *const Api, failure: &Failure) -> ErrorPtr {
    let message = CString::new(failure.message.replace('\0', " ")).unwrap_or_default();
    // SAFETY: XLA's API table (the caller's contract).
    let Some(create) = (unsafe { api.as_ref() }).and_then(|a| a.error_create) else {
        return std::ptr::null_mut();
    };
    let mut args = abi::ErrorCreateArgs {
        struct_size: abi::ERROR_CREATE_ARGS_SIZE,
        extension_start: std::ptr::null_mut(),
        message: message.as_ptr(),
        errc: failure.code,
    };
    // SAFETY: XLA's function with its own argument struct; the message outlives the call.
    unsafe { create(&mut args) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_every_axis_but_the_last() {
        assert_eq!(rows_of(&[3, 4, 100]).ok(), Some((12, 100)));
        assert_eq!(rows_of(&[7]).ok(), Some((1, 7)));
        assert!(rows_of(&[]).is_err());
        assert!(rows_of(&[-1, 4]).is_err());
        assert!(rows_of(&[i64::MAX, i64::MAX, 2]).is_err());
    }

    #[test]
    fn only_the_two_platforms_have_handlers() {
        assert!(handler_address("cpu").is_some_and(|a| a != 0));
        assert!(handler_address("cuda").is_some_and(|a| a != 0));
        assert_ne!(handler_address("cpu"), handler_address("cuda"));
        assert_eq!(handler_address("rocm"), None);
    }
}
