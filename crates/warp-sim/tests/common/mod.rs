//! What the equivalence suites (f32 and 16-bit) draw from alike.

use proptest::prelude::*;
use topk_ref::{Bisect, Element, KeyBits, Mode, Options, topk_row};
use warp_sim::rtopk::Strategy as Launch;
use warp_sim::{ElemType, Family, KernelArgs, SimConfig, Simulator};

/// The bisect configurations the kernels take: exact, a precision relative to |max|, early
/// stopping.
pub(crate) fn bisect() -> impl Strategy<Value = Bisect> {
    prop_oneof![
        3 => Just(Bisect::exact()),
        1 => (0.0f32..0.5).prop_map(|p| Bisect::with_precision(p).unwrap()),
        2 => (0u32..12).prop_map(Bisect::early_stopping),
        1 => (30u32..80).prop_map(Bisect::early_stopping),
        2 => (0.01f32..1.0).prop_map(|r| Bisect::with_recall(r).unwrap()),
    ]
}

/// The strategies that hold rows of `m` elements of `elem`: the plan's choice, and every family
/// forced but split rows and the radix select (which have no iteration counts: their suites
/// check them apart, `radix.rs` the radix select's).
pub(crate) fn strategies(m: usize, elem: ElemType) -> Vec<Launch> {
    let holds = |s: &Launch| m <= s.max_row(elem) && s.counts();
    Launch::ALL.into_iter().filter(holds).collect()
}

/// Runs the `(n, m)` matrix `x` (16-bit or integer rows) on the simulator and compares every
/// row with topk-ref's `Bisect` on the same elements — indices, value bits, iteration counts
/// (none on split rows) — with no diagnostic, on the unit of `E`'s own type; the family that
/// ran. (The f32 suites check more per case, `equivalence.rs`; so they do not call it.)
pub(crate) fn check_against_bisect<E: Element>(
    config: SimConfig,
    (n, m, x): (usize, usize, &[E]),
    k: usize,
    mode: Mode,
    b: Bisect,
) -> Result<Family, TestCaseError> {
    let args = KernelArgs { n, m, k, mode, bisect: b, mutant: None };
    let got =
        Simulator::new(config).run(x, &args).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let unit = got.plan.unit;
    prop_assert!(got.diagnostics.is_empty(), "{}: {}", unit, got.summary);
    prop_assert!(unit.to_string().ends_with(E::NAME), "{} runs the {} kernels", unit, E::NAME);
    let opts = Options { mode, sorted: config.sorted };
    let bits = |v: &[E]| v.iter().map(|e| e.to_bits().to_u64()).collect::<Vec<_>>();
    for r in 0..n {
        let want = topk_row(E::as_dyn(&b), &x[r * m..(r + 1) * m], k, opts).unwrap();
        let (lo, hi) = (r * k, (r + 1) * k);
        prop_assert_eq!(&got.indices[lo..hi], want.indices.as_slice(), "{} row {}", unit, r);
        prop_assert_eq!(bits(&got.values[lo..hi]), bits(&want.values), "{} row {}", unit, r);
        if got.route.depth() > 0 {
            prop_assert!(got.iterations.is_empty(), "{}: counts of a split row", unit);
            continue;
        }
        let want_it = want.stats.iterations.unwrap_or(0);
        prop_assert_eq!(got.iterations[r], want_it, "{} row {}", unit, r);
    }
    Ok(got.plan.family())
}
