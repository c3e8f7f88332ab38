//! Recall mode (docs/contract.md §6; `topk_ref::bisect`, "Recall"): on every element type,
//! rows with NaN of both signs, ±inf, ±0, subnormals, heavy ties and extremes, the same rows
//! reordered worst first (ascending, so that the band fills from its smallest values), k ∈ {0,
//! 1, M−1, M} and random, both modes, sorted and unsorted output — the answer holds k distinct
//! indices with the input's bits, at least `ceil(r·k)` of them in the canonical top k, its
//! tests are a prefix of exact mode's (never more of them), and `r = 1` is exact mode itself.

use std::collections::HashSet;

use proptest::prelude::*;
use test_support::{pick_k, row, row_bf16, row_f16, row_f64, row_int};
use topk_ref::oracle::canonical_sorted_indices;
use topk_ref::{Bisect, Element, Mode, Options, topk_row};

/// Widest row of the property tests.
const WIDTH: usize = 700;

fn cases() -> ProptestConfig {
    ProptestConfig { cases: 128, ..ProptestConfig::default() }
}

/// The row in the reverse of its canonical order: the worst order for the band's fill by index.
fn worst_order<E: Element>(row: &[E], mode: Mode) -> Vec<E> {
    let order = canonical_sorted_indices(row, row.len(), mode);
    order.iter().rev().map(|&i| row[i as usize]).collect()
}

fn check_recall<E: Element>(
    row: &[E],
    k: usize,
    r: f32,
    mode: Mode,
    sorted: bool,
) -> Result<(), TestCaseError> {
    let opts = Options { mode, sorted };
    let approx = Bisect::with_recall(r).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let got = topk_row(E::as_dyn(&approx), row, k, opts).unwrap();
    let exact = topk_row(E::as_dyn(&Bisect::exact()), row, k, opts).unwrap();
    let distinct: HashSet<u32> = got.indices.iter().copied().collect();
    prop_assert_eq!(distinct.len(), k, "{} indices not distinct", E::NAME);
    prop_assert!(got.indices.iter().all(|&i| (i as usize) < row.len()));
    for (v, &i) in got.values.iter().zip(&got.indices) {
        prop_assert!(v.to_bits() == row[i as usize].to_bits());
    }
    let canonical: HashSet<u32> = canonical_sorted_indices(row, k, mode).into_iter().collect();
    let hits = got.indices.iter().filter(|i| canonical.contains(i)).count();
    let need = ((r * k as f32).ceil() as usize).min(k);
    prop_assert!(hits >= need, "{} k={k} r={r}: {hits} of the top k, need {need}", E::NAME);
    // a row that selects nothing reports no count (docs/contract.md §5: 0 iterations)
    let (it, exact_it) = (got.stats.iterations.unwrap_or(0), exact.stats.iterations.unwrap_or(0));
    prop_assert!(it <= exact_it, "{}: {it} tests, exact mode {exact_it}", E::NAME);
    if !sorted {
        prop_assert!(got.indices.windows(2).all(|w| w[0] < w[1]), "not in index order");
    }
    if r == 1.0 {
        prop_assert_eq!((&got.indices, it), (&exact.indices, exact_it));
    }
    Ok(())
}

/// `check_recall` on the row as drawn and in its worst order.
fn check_both_orders<E: Element>(
    row: &[E],
    which: u8,
    frac: f64,
    r: f32,
    smallest: bool,
    sorted: bool,
) -> Result<(), TestCaseError> {
    let k = pick_k(row.len(), which, frac);
    let mode = Mode::from_smallest(smallest);
    check_recall(row, k, r, mode, sorted)?;
    check_recall(&worst_order(row, mode), k, r, mode, sorted)
}

/// Recall targets: the documented ones, 1 (exact), and any in (0, 1).
fn target() -> impl Strategy<Value = f32> {
    prop_oneof![Just(0.8f32), Just(0.9), Just(0.95), Just(0.99), Just(1.0), (0.01f32..1.0),]
}

macro_rules! recall_property {
    ($name:ident, $strategy:expr) => {
        proptest! {
            #![proptest_config(cases())]
            #[test]
            fn $name(row in $strategy, which in 0u8..6, frac in 0.0f64..1.0, r in target(),
                     smallest: bool, sorted: bool) {
                check_both_orders(&row, which, frac, r, smallest, sorted)?;
            }
        }
    };
}

recall_property!(f32_rows_meet_the_target, row(WIDTH));
recall_property!(f16_rows_meet_the_target, row_f16(WIDTH));
recall_property!(bf16_rows_meet_the_target, row_bf16(WIDTH));
recall_property!(f64_rows_meet_the_target, row_f64(WIDTH));
recall_property!(i8_rows_meet_the_target, row_int::<i8>(WIDTH));
recall_property!(u8_rows_meet_the_target, row_int::<u8>(WIDTH));
recall_property!(i16_rows_meet_the_target, row_int::<i16>(WIDTH));
recall_property!(i32_rows_meet_the_target, row_int::<i32>(WIDTH));
recall_property!(i64_rows_meet_the_target, row_int::<i64>(WIDTH));

#[test]
fn targets_outside_the_unit_interval_are_refused() {
    for r in [0.0f32, -0.5, 1.0001, f32::NAN, f32::INFINITY] {
        assert!(Bisect::with_recall(r).is_err(), "{r}");
    }
    assert_eq!(Bisect::with_recall(1.0).unwrap(), Bisect::exact());
    let both = Bisect { recall: Some(0.9), ..Bisect::early_stopping(3) };
    assert!(both.validate().is_err());
    let with_precision = Bisect { recall: Some(0.9), ..Bisect::with_precision(0.1).unwrap() };
    assert!(with_precision.validate().is_err());
}

/// The rule by hand on one row: 1..=100 (largest, k = 10). From (1, 100) exact mode tests
/// 50.5 (50 values pass), 75.25 (25), 87.625 (13), 93.8125 (7 < k: `hi`), 90.71875 (10: a
/// hit): 5 tests. Before each test the selection would miss at most
/// `min(k - cnt(hi), cnt(lo) - k)`: 10, 10, 10, 3 (after the third test), 3 (after the fourth).
/// r = 0.9 (slack 1) needs the hit; r = 0.7 (slack 3) stops after the third test, from the
/// bracket [87.625, 100] whose `hi` no test lowered.
#[test]
fn the_rule_stops_where_the_bound_allows() {
    let row: Vec<f32> = (1..=100).map(|v| v as f32).collect();
    let run = |r: f32| {
        let b = Bisect::with_recall(r).unwrap();
        let opts = Options { mode: Mode::Largest, sorted: false };
        let got = topk_row(&b, &row, 10, opts).unwrap();
        (got.stats.iterations.unwrap(), got.indices)
    };
    let top: Vec<u32> = (90..100).collect();
    assert_eq!(run(1.0), (5, top.clone()));
    assert_eq!(run(0.9), (5, top));
    // every value >= hi (100, index 99), then the first 9 of the band [87.625, 100) by index
    // (88..=96): 7 of the top 10
    let mut want: Vec<u32> = (87..96).collect();
    want.push(99);
    assert_eq!(run(0.7), (3, want));
    assert_eq!(Bisect::with_recall(0.7).unwrap().recall_slack(10), Some(3));
    assert_eq!(Bisect::exact().recall_slack(10), None);
    // no miss allowed: exact mode, even where the row's length is k (no test at all would do)
    assert_eq!(Bisect::with_recall(0.95).unwrap().recall_slack(19), None);
    let all = topk_row(&Bisect::with_recall(0.95).unwrap(), &row[..10], 10, Options::default());
    let exact = topk_row(&Bisect::exact(), &row[..10], 10, Options::default()).unwrap();
    assert_eq!(all.unwrap().stats.iterations, exact.stats.iterations);
}
