//! What the equivalence suites (f32 and 16-bit) draw from alike.

use proptest::prelude::*;
use topk_ref::Bisect;
use warp_sim::ElemType;
use warp_sim::rtopk::Strategy as Launch;

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
/// forced but split rows (which have no iteration counts: their suites check them apart).
pub(crate) fn strategies(m: usize, elem: ElemType) -> Vec<Launch> {
    let holds = |s: &Launch| m <= s.max_row(elem) && *s != Launch::Split;
    Launch::ALL.into_iter().filter(holds).collect()
}
