//! The crate's one error type.

use thiserror::Error;

/// Why a baseline could not be configured. Selection itself never fails: argument checks on
/// rows and k are the row-wise driver's ([`topk_ref::TopKError`]).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BaselineError {
    /// A parameter is out of its domain.
    #[error("invalid parameter {name}: {reason}")]
    InvalidParameter {
        /// The parameter's name.
        name: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A name that is not one of [`crate::BASELINE_NAMES`].
    #[error("unknown baseline '{0}'")]
    UnknownName(String),
}

impl BaselineError {
    /// [`BaselineError::InvalidParameter`] for `name`, saying `reason`.
    pub(crate) fn invalid(name: &'static str, reason: impl Into<String>) -> Self {
        Self::InvalidParameter { name, reason: reason.into() }
    }
}
