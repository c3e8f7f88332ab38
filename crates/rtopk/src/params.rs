//! The parameters a caller may give an algorithm besides `k` and the output options, checked
//! once here for every face (command line, Python).

use std::fmt;
use std::str::FromStr;

use topk_ref::{Bisect, EpsilonMode};

use crate::error::Error;
pub use crate::param::Param;

/// Algorithm 1's precision ε' (paper 003, line 3), validated: a finite number `>= 0` that
/// fits an `f32`.
///
/// Built from the text the caller typed ([`FromStr`]) or from a float ([`Precision::new`]), so
/// that a refusal quotes the caller's own value (`1e40`, not the `inf` it becomes in `f32`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Precision(f32);

impl Precision {
    /// Exact search (ε' = 0).
    pub const EXACT: Precision = Precision(0.0);

    /// The precision `value`, refused with [`Error::BadPrecision`] unless it is a finite number
    /// `>= 0` that stays finite in `f32` (values are rounded to the nearest `f32`).
    pub fn new(value: f64) -> Result<Self, Error> {
        Self::checked(value, || quote(value))
    }

    /// The value as the bisection uses it.
    pub fn get(self) -> f32 {
        self.0
    }

    fn checked(value: f64, given: impl FnOnce() -> String) -> Result<Self, Error> {
        let narrowed = value as f32;
        if value >= 0.0 && narrowed.is_finite() {
            Ok(Precision(narrowed))
        } else {
            Err(Error::BadPrecision { given: given() })
        }
    }
}

impl FromStr for Precision {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parsed(s, |given| Error::BadPrecision { given }, |v, text| Self::checked(v, || text.into()))
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A recall target `r` (docs/contract.md §6), validated: `0 < r <= 1` in `f32` (1 is exact).
///
/// Built from the text the caller typed ([`FromStr`]) or from a float ([`Recall::new`]), so
/// that a refusal quotes the caller's own value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Recall(f32);

impl Recall {
    /// Exact search (`r = 1`).
    pub const EXACT: Recall = Recall(1.0);

    /// The target `value`, refused with [`Error::BadRecall`] unless `0 < value <= 1` and it
    /// stays above 0 in `f32` (values are rounded to the nearest `f32`; NaN is refused).
    pub fn new(value: f64) -> Result<Self, Error> {
        Self::checked(value, || quote(value))
    }

    /// The target as the bisection uses it.
    pub fn get(self) -> f32 {
        self.0
    }

    fn checked(value: f64, given: impl FnOnce() -> String) -> Result<Self, Error> {
        let narrowed = value as f32;
        if value > 0.0 && value <= 1.0 && narrowed > 0.0 {
            Ok(Recall(narrowed.min(1.0)))
        } else {
            Err(Error::BadRecall { given: given() })
        }
    }
}

impl FromStr for Recall {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parsed(s, |given| Error::BadRecall { given }, |v, text| Self::checked(v, || text.into()))
    }
}

impl fmt::Display for Recall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A parameter parsed from the text `s` the caller typed: `checked` takes the number and the
/// text a refusal quotes; text that is not a number is refused with `bad` quoting it.
fn parsed<T>(
    s: &str,
    bad: impl Fn(String) -> Error,
    checked: impl FnOnce(f64, &str) -> Result<T, Error>,
) -> Result<T, Error> {
    let text = s.trim();
    let value: f64 = text.parse().map_err(|_| bad(text.to_string()))?;
    checked(value, text)
}

/// A float as a person would type it: plain for everyday magnitudes, with an exponent for very
/// large or very small ones (`1e40`, not forty digits).
fn quote(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude != 0.0 && !(1e-4..1e16).contains(&magnitude) {
        format!("{value:e}")
    } else {
        format!("{value}")
    }
}

/// The bisection family's parameters (`bisect`, `sim`, `cuda`); the default is exact
/// Algorithm 1. Other algorithms accept only the default.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Params {
    /// Early stopping (Algorithm 2) after this many steps.
    pub max_iter: Option<u32>,
    /// Algorithm 1 with this precision ε'.
    pub precision: Option<Precision>,
    /// How ε' becomes the stopping width (paper: relative to the row maximum).
    pub epsilon: EpsilonMode,
    /// Exact search stopped once every row's recall is at least this target
    /// (docs/contract.md §6); takes neither `max_iter` nor `precision`.
    pub recall: Option<Recall>,
}

impl Params {
    /// Early stopping after `max_iter` steps.
    pub fn early_stopping(max_iter: u32) -> Self {
        Self { max_iter: Some(max_iter), ..Self::default() }
    }

    /// Algorithm 1 with precision `precision`.
    pub fn with_precision(precision: Precision) -> Self {
        Self { precision: Some(precision), ..Self::default() }
    }

    /// Exact search with the recall target `recall` (docs/contract.md §6).
    pub fn with_recall(recall: Recall) -> Self {
        Self { recall: Some(recall), ..Self::default() }
    }

    /// The parameters that differ from the default, in a fixed order.
    pub fn given(&self) -> Vec<Param> {
        let mut out = Vec::new();
        if self.max_iter.is_some() {
            out.push(Param::MaxIter);
        }
        if self.precision.is_some() {
            out.push(Param::Precision);
        }
        if self.epsilon != EpsilonMode::default() {
            out.push(Param::Epsilon);
        }
        if self.recall.is_some() {
            out.push(Param::Recall);
        }
        out
    }

    /// The bisection these parameters describe. `max_iter` and `precision` together are refused
    /// ([`Error::ConflictingParams`]): early stopping has no precision; a recall target with
    /// either of them too ([`Error::RecallConflict`]): the target chooses where the search
    /// stops. A hint is no parameter: the recall search ignores it, as a precision does.
    pub fn bisect(&self) -> Result<Bisect, Error> {
        match (self.max_iter, self.precision, self.recall) {
            (Some(_), Some(_), _) => Err(Error::ConflictingParams),
            (Some(_), None, Some(_)) => Err(Error::RecallConflict { other: Param::MaxIter }),
            (None, Some(_), Some(_)) => Err(Error::RecallConflict { other: Param::Precision }),
            (None, None, Some(r)) => {
                Ok(Bisect { epsilon_mode: self.epsilon, ..Bisect::with_recall(r.get())? })
            }
            (Some(n), None, None) => Ok(Bisect::early_stopping(n)),
            (None, precision, None) => Ok(Bisect {
                precision: precision.unwrap_or_default().get(),
                epsilon_mode: self.epsilon,
                ..Bisect::exact()
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precision_quotes_what_was_typed() {
        assert_eq!("0.25".parse::<Precision>().unwrap().get(), 0.25);
        assert_eq!(Precision::new(0.0).unwrap(), Precision::EXACT);
        for (text, shown) in [("1e40", "1e40"), (" -0.5", "-0.5"), ("nan", "nan"), ("x", "x")] {
            let e = text.parse::<Precision>().unwrap_err();
            assert!(matches!(&e, Error::BadPrecision { given } if given == shown), "{e}");
            assert!(e.to_string().contains(&format!("precision {shown} ")), "{e}");
        }
        let e = Precision::new(1e40).unwrap_err();
        assert!(e.to_string().contains("1e40") && !e.to_string().contains("inf"), "{e}");
        assert!(Precision::new(f64::INFINITY).is_err() && Precision::new(-1e-3).is_err());
        assert!(Precision::new(f64::from(f32::MAX)).is_ok());
    }

    #[test]
    fn recall_quotes_what_was_typed() {
        assert_eq!("0.9".parse::<Recall>().unwrap().get(), 0.9);
        assert_eq!(" 1 ".parse::<Recall>().unwrap(), Recall::EXACT);
        assert_eq!(Recall::new(1.0).unwrap(), Recall::EXACT);
        for (text, shown) in [("0", "0"), ("1.5", "1.5"), ("nan", "nan"), ("-0.5", "-0.5")] {
            let e = text.parse::<Recall>().unwrap_err();
            assert!(matches!(&e, Error::BadRecall { given } if given == shown), "{e}");
            assert!(e.to_string().contains(&format!("recall {shown} ")), "{e}");
            assert!(e.is_user_error());
        }
        for bad in [f64::NAN, f64::INFINITY, 0.0, -0.0, 1.000_001, 1e-50, -1.0] {
            assert!(Recall::new(bad).is_err(), "{bad}");
        }
        assert!(matches!("x".parse::<Recall>(), Err(Error::BadRecall { given }) if given == "x"));
        assert_eq!(Recall::new(1e-3).unwrap().get(), 1e-3);
    }

    #[test]
    fn recall_becomes_the_recall_search_alone() {
        let r = Recall::new(0.9).unwrap();
        let p = Params::with_recall(r);
        assert_eq!(p.bisect().unwrap(), Bisect::with_recall(0.9).unwrap());
        assert!(p.bisect().unwrap().recall.is_some());
        assert_eq!(p.given(), [Param::Recall]);
        // r = 1 is exact mode itself
        assert_eq!(Params::with_recall(Recall::EXACT).bisect().unwrap(), Bisect::exact());
        let e = Params { max_iter: Some(3), ..p }.bisect().unwrap_err();
        assert!(matches!(e, Error::RecallConflict { other: Param::MaxIter }), "{e}");
        assert!(e.to_string().contains("--max-iter") && e.to_string().contains("--recall"));
        let q = Params { precision: Some(Precision::EXACT), ..p };
        let e = q.bisect().unwrap_err();
        assert!(matches!(e, Error::RecallConflict { other: Param::Precision }), "{e}");
        assert!(e.is_user_error());
        // the conflict that predates the recall target keeps its error
        let all = Params { max_iter: Some(3), ..q };
        assert!(matches!(all.bisect(), Err(Error::ConflictingParams)));
    }

    #[test]
    fn params_become_one_bisection() {
        assert_eq!(Params::default().bisect().unwrap(), Bisect::exact());
        assert_eq!(Params::early_stopping(4).bisect().unwrap(), Bisect::early_stopping(4));
        let p = Params::with_precision(Precision::new(0.5).unwrap());
        assert_eq!(p.bisect().unwrap().precision, 0.5);
        let both = Params { max_iter: Some(3), ..p };
        assert!(matches!(both.bisect(), Err(Error::ConflictingParams)));
        assert_eq!(both.given(), [Param::MaxIter, Param::Precision]);
        assert!(Params::default().given().is_empty());
        assert_eq!(Param::MaxIter.to_string(), "--max-iter (max_iter)");
    }
}
