//! Rust errors as Python exceptions, and the panic guard at the boundary.
//!
//! Each [`rtopk::Error`] (and each `rtopk_tools::Error`) becomes one Python exception
//! carrying the same message, chosen by its variant (never by its text): the caller's input →
//! `ValueError` (a size too large to allocate → `MemoryError`, an element type the algorithm
//! does not take → `TypeError`), a missing CUDA driver → [`CudaUnavailableError`], other GPU
//! failures → [`CudaError`], the environment (files) → `OSError`. A Rust panic never unwinds into the
//! interpreter: [`guard`] turns it into [`InternalError`].

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

use pyo3::create_exception;
use pyo3::exceptions::{PyMemoryError, PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use rtopk::Error;

use crate::engine::{self, Class};

create_exception!(
    rtopk,
    CudaError,
    PyRuntimeError,
    "The GPU path failed: NVRTC compilation, a driver call or a launch."
);
create_exception!(
    rtopk,
    CudaUnavailableError,
    CudaError,
    "No CUDA driver (or no NVRTC library, or no CUDA launch in this build): the GPU path cannot run here."
);
create_exception!(
    rtopk,
    InternalError,
    PyRuntimeError,
    "A bug in rtopk (a Rust panic caught at the boundary); the interpreter is unharmed."
);

/// The Python exception for `e`, with `e`'s message.
pub(crate) fn to_py(e: Error) -> PyErr {
    exception(engine::class_of(&e), e.to_string())
}

/// The Python exception for an error of the tools crate, with its message.
pub(crate) fn tools_to_py(e: rtopk_tools::Error) -> PyErr {
    exception(engine::tools_class(&e), e.to_string())
}

fn exception(class: Class, msg: String) -> PyErr {
    match class {
        Class::Value => PyValueError::new_err(msg),
        Class::Type => PyTypeError::new_err(msg),
        Class::Memory => PyMemoryError::new_err(msg),
        Class::CudaUnavailable => CudaUnavailableError::new_err(msg),
        Class::Cuda => CudaError::new_err(msg),
        Class::Os => PyOSError::new_err(msg),
        Class::Runtime => PyRuntimeError::new_err(msg),
    }
}

/// An error the library or its tools return.
pub(crate) trait Failure: Send {
    /// The Python exception for it.
    fn into_py(self) -> PyErr;
}

impl Failure for Error {
    fn into_py(self) -> PyErr {
        to_py(self)
    }
}

impl Failure for rtopk_tools::Error {
    fn into_py(self) -> PyErr {
        tools_to_py(self)
    }
}

/// Runs `f` with the interpreter detached (other Python threads run meanwhile), catching a
/// panic: its result, the Python exception of its error, or [`InternalError`].
pub(crate) fn detached<T: Send>(
    py: Python<'_>,
    f: impl FnOnce() -> Result<T, Error> + Send,
) -> PyResult<T> {
    detached_with(py, f)
}

/// [`detached`] for any error of the library or its tools crate.
pub(crate) fn detached_with<T: Send, F: Failure>(
    py: Python<'_>,
    f: impl FnOnce() -> Result<T, F> + Send,
) -> PyResult<T> {
    match py.detach(move || catch_unwind(AssertUnwindSafe(f))) {
        Ok(result) => result.map_err(Failure::into_py),
        Err(payload) => Err(internal(payload.as_ref())),
    }
}

/// Runs `f` (attached), turning a panic into [`InternalError`].
pub(crate) fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| Err(internal(payload.as_ref())))
}

/// [`InternalError`] for a caught panic, with the panic's message.
fn internal(payload: &(dyn Any + Send)) -> PyErr {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string());
    InternalError::new_err(format!(
        "internal error in rtopk (a bug; please report it with the call that caused it): {what}"
    ))
}

/// A `ValueError` with `msg`: arguments Python passes that Rust's types cannot say (k < 0).
pub(crate) fn value_error(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}
