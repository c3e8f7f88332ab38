//! The bisection family's options (`--max-iter`, `--precision`), shared by `select`, `stats` and
//! `trace`; the library checks them (`rtopk::Params`).

use clap::Args;
use rtopk::{Params, Precision};

/// `--max-iter N` / `--precision EPS`.
#[derive(Clone, Copy, Debug, Default, Args)]
pub(crate) struct SearchArgs {
    /// Early stopping (RTop-K Algorithm 2) after N bisection steps [bisect, sim, cuda]
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub(crate) max_iter: Option<u32>,
    /// Algorithm 1's precision EPS >= 0, relative to the row maximum [bisect, sim, cuda]
    #[arg(long, value_name = "EPS", allow_hyphen_values = true, value_parser = parse_precision)]
    pub(crate) precision: Option<Precision>,
}

impl SearchArgs {
    /// The parameters as the library takes them (checked there: `--max-iter` and `--precision`
    /// exclude each other).
    pub(crate) fn params(self) -> Params {
        Params { max_iter: self.max_iter, precision: self.precision, ..Params::default() }
    }
}

/// A precision as typed, so that a refusal quotes the argument (`1e40`), not its `f32` (`inf`).
fn parse_precision(text: &str) -> Result<Precision, String> {
    text.parse::<Precision>().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precisions_are_read_as_typed() {
        assert_eq!(parse_precision("0.25").unwrap().get(), 0.25);
        assert_eq!(parse_precision("0").unwrap(), Precision::EXACT);
        for bad in ["1e40", "inf", "-inf", "-0.5", "NaN", "abc"] {
            let e = parse_precision(bad).unwrap_err();
            assert!(e.contains(bad), "{bad}: {e}");
        }
    }

    #[test]
    fn both_parameters_are_refused_together() {
        let both = SearchArgs { max_iter: Some(3), precision: Some(Precision::EXACT) };
        assert!(both.params().bisect().is_err());
        assert!(SearchArgs::default().params().bisect().unwrap().max_iter.is_none());
    }
}
