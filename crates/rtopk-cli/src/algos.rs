//! Algorithms by their `--algo` names (SPEC §4), with the command-line parameters they take.
//!
//! This is the one place that maps a name to a [`RowTopK`]. Crates that add algorithms (the
//! warp simulator, the CUDA kernel, the baselines) register them by adding a match arm to
//! [`build_plain`] or, for RTop-K's bisection family, to [`build_bisection`]; every other part
//! of the command line (argument checks, error messages, `bench`) follows from those two
//! functions and the name lists below.

use topk_ref::{Bisect, RowTopK};

use crate::error::CliError;

/// Every `--algo` name SPEC §4 defines, in the order it lists them. Names missing from this
/// build are reported as "not available in this build yet" rather than as unknown.
pub(crate) const SPEC_ALGORITHMS: [&str; 14] = [
    "heap",
    "quickselect",
    "radix",
    "bucket",
    "bitonic",
    "bisect",
    "sim",
    "cuda",
    "air",
    "gridselect",
    "warpselect",
    "drtopk",
    "torch-radix",
    "sort",
];

/// The algorithms that run RTop-K's bisection search: they take `--max-iter` (early stopping,
/// Algorithm 2) and `--precision` (Algorithm 1's ε'), and report iteration counts (SPEC §3).
pub(crate) const BISECTION_FAMILY: [&str; 3] = ["bisect", "sim", "cuda"];

/// Bisection parameters from the command line; both `None` means exact Algorithm 1.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct BisectParams {
    /// `--max-iter N`: early stopping after N steps.
    pub(crate) max_iter: Option<u32>,
    /// `--precision EPS`: Algorithm 1 with precision ε' = EPS.
    pub(crate) precision: Option<f32>,
}

impl BisectParams {
    /// `true` when neither parameter was given.
    fn is_empty(&self) -> bool {
        self.max_iter.is_none() && self.precision.is_none()
    }

    /// The [`Bisect`] configuration these parameters describe (validated).
    pub(crate) fn to_bisect(self) -> Result<Bisect, CliError> {
        match (self.max_iter, self.precision) {
            (Some(_), Some(_)) => Err(CliError::BadArgument(
                "--max-iter (early stopping, Algorithm 2) and --precision (Algorithm 1) \
                 cannot be combined; give at most one of them"
                    .into(),
            )),
            (Some(n), None) => Ok(Bisect::early_stopping(n)),
            (None, Some(eps)) => Ok(Bisect::with_precision(eps)?),
            (None, None) => Ok(Bisect::exact()),
        }
    }
}

/// Algorithms of the bisection family, configured by `bisect`; `None` when `name` is not
/// built in. Add `"sim"` and `"cuda"` here when their crates exist.
fn build_bisection(name: &str, bisect: Bisect) -> Option<Box<dyn RowTopK>> {
    match name {
        "bisect" => Some(Box::new(bisect)),
        "sim" => Some(Box::new(warp_sim::SimTopK::new(bisect))),
        _ => None,
    }
}

/// Algorithms without command-line parameters — topk-ref's and the baselines (`air`,
/// `gridselect`, `warpselect`, `drtopk`, `torch-radix`, `sort`, with their papers' defaults);
/// `None` when `name` is not built in.
fn build_plain(name: &str) -> Option<Box<dyn RowTopK>> {
    topk_ref::by_name(name).or_else(|| baselines::by_name(name))
}

/// `true` when `name` takes `--max-iter` / `--precision`.
fn is_bisection(name: &str) -> bool {
    BISECTION_FAMILY.contains(&name)
}

/// The algorithm called `name` with default parameters, if this build has it.
fn build_default(name: &str) -> Option<Box<dyn RowTopK>> {
    if is_bisection(name) { build_bisection(name, Bisect::exact()) } else { build_plain(name) }
}

/// The SPEC names this build can run, in SPEC order.
pub(crate) fn available_names() -> Vec<&'static str> {
    SPEC_ALGORITHMS.into_iter().filter(|n| build_default(n).is_some()).collect()
}

/// "a, b and c" for messages.
pub(crate) fn list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The error for a name that is not a SPEC algorithm.
fn unknown(name: &str) -> CliError {
    let available = available_names();
    let planned: Vec<&str> =
        SPEC_ALGORITHMS.into_iter().filter(|n| !available.contains(n)).collect();
    let mut valid = available.join(", ");
    if !planned.is_empty() {
        valid.push_str(&format!(" (not yet in this build: {})", planned.join(", ")));
    }
    CliError::UnknownAlgorithm { name: name.to_string(), valid }
}

/// The algorithm `name` configured with `params`, after every argument check: the name is a
/// SPEC name and is built in, the parameters are ones it takes, and their values are valid.
pub(crate) fn resolve(name: &str, params: BisectParams) -> Result<Box<dyn RowTopK>, CliError> {
    if !SPEC_ALGORITHMS.contains(&name) {
        return Err(unknown(name));
    }
    if build_default(name).is_none() {
        return Err(CliError::NotAvailable(name.to_string()));
    }
    if !is_bisection(name) {
        let option = if params.max_iter.is_some() {
            Some("--max-iter")
        } else if params.precision.is_some() {
            Some("--precision")
        } else {
            None
        };
        if let Some(option) = option {
            return Err(CliError::OptionNotSupported {
                option,
                algo: name.to_string(),
                valid_for: list(&BISECTION_FAMILY),
            });
        }
        debug_assert!(params.is_empty());
        return build_plain(name).ok_or_else(|| CliError::NotAvailable(name.to_string()));
    }
    let bisect = params.to_bisect()?;
    build_bisection(name, bisect).ok_or_else(|| CliError::NotAvailable(name.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_topk_ref_algorithm_is_a_spec_name_and_available() {
        for name in topk_ref::ALGORITHM_NAMES {
            assert!(SPEC_ALGORITHMS.contains(&name), "{name}");
            let algo = resolve(name, BisectParams::default()).unwrap();
            assert_eq!(algo.name(), name);
            assert!(algo.is_exact());
        }
    }

    #[test]
    fn parameters_are_checked() {
        let es = BisectParams { max_iter: Some(4), precision: None };
        assert!(!resolve("bisect", es).unwrap().is_exact());
        assert!(matches!(resolve("heap", es), Err(CliError::OptionNotSupported { .. })));
        let both = BisectParams { max_iter: Some(4), precision: Some(0.1) };
        assert!(matches!(resolve("bisect", both), Err(CliError::BadArgument(_))));
        let bad = BisectParams { max_iter: None, precision: Some(f32::NAN) };
        assert!(matches!(resolve("bisect", bad), Err(CliError::TopK(_))));
    }

    #[test]
    fn registered_unknown_and_matrix_level_names() {
        assert!(matches!(
            resolve("nope", BisectParams::default()),
            Err(CliError::UnknownAlgorithm { .. })
        ));
        assert_eq!(resolve("air", BisectParams::default()).unwrap().name(), "air");
        assert_eq!(resolve("sim", BisectParams::default()).unwrap().name(), "sim");
        // The GPU runs whole matrices, so `select` handles it before this per-row registry.
        assert!(matches!(resolve("cuda", BisectParams::default()), Err(CliError::NotAvailable(_))));
        assert_eq!(list(&["a", "b", "c"]), "a, b and c");
    }
}
