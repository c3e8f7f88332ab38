//! The bisection family's options (`--max-iter`, `--precision`, `--recall`), shared by
//! `select`, `stats`, `trace` and `plan`; the library checks them (`rtopk::Params`).

use clap::Args;
use rtopk::{Params, Precision, Recall};

/// `--max-iter N` / `--precision EPS` / `--recall R`.
#[derive(Clone, Copy, Debug, Default, Args)]
pub(crate) struct SearchArgs {
    /// Early stopping (RTop-K Algorithm 2) after N bisection steps [bisect, sim, cuda]
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub(crate) max_iter: Option<u32>,
    /// Algorithm 1's precision EPS >= 0, relative to the row maximum [bisect, sim, cuda]
    #[arg(long, value_name = "EPS", allow_hyphen_values = true, value_parser = parse_precision)]
    pub(crate) precision: Option<Precision>,
    /// A recall target 0 < R <= 1 (docs/contract.md §6): exact bisection that stops once every
    /// row holds at least ceil(R·k) of its exact top k; 1 is exact; not with --max-iter or
    /// --precision [bisect, sim, cuda]
    #[arg(long, value_name = "R", allow_hyphen_values = true, value_parser = parse_recall)]
    pub(crate) recall: Option<Recall>,
}

impl SearchArgs {
    /// The parameters as the library takes them (checked there: `--max-iter`, `--precision`
    /// and `--recall` exclude each other).
    pub(crate) fn params(self) -> Params {
        Params {
            max_iter: self.max_iter,
            precision: self.precision,
            recall: self.recall,
            ..Params::default()
        }
    }
}

/// A precision as typed, so that a refusal quotes the argument (`1e40`), not its `f32` (`inf`).
fn parse_precision(text: &str) -> Result<Precision, String> {
    text.parse::<Precision>().map_err(|e| e.to_string())
}

/// A recall target as typed, so that a refusal quotes the argument.
fn parse_recall(text: &str) -> Result<Recall, String> {
    text.parse::<Recall>().map_err(|e| e.to_string())
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
    fn recall_targets_are_read_as_typed() {
        assert_eq!(parse_recall("0.95").unwrap().get(), 0.95);
        assert_eq!(parse_recall("1").unwrap(), Recall::EXACT);
        for bad in ["0", "1.5", "nan", "-0.1", "abc", "inf"] {
            let e = parse_recall(bad).unwrap_err();
            assert!(e.contains(bad), "{bad}: {e}");
        }
    }

    #[test]
    fn both_parameters_are_refused_together() {
        let both = SearchArgs {
            max_iter: Some(3),
            precision: Some(Precision::EXACT),
            ..SearchArgs::default()
        };
        assert!(both.params().bisect().is_err());
        let r = parse_recall("0.9").unwrap();
        let with = SearchArgs { recall: Some(r), ..SearchArgs::default() };
        assert_eq!(with.params().recall, Some(r));
        assert!(with.params().bisect().unwrap().recall.is_some());
        assert!(SearchArgs { max_iter: Some(1), ..with }.params().bisect().is_err());
        assert!(SearchArgs::default().params().bisect().unwrap().max_iter.is_none());
    }
}
