//! Integer rows (i8, u8, i16, i32; docs/kernel.md "Integer rows"): every launch family of the
//! simulated kernel *is* topk-ref's bisect on the same integers — identical indices, values
//! and iteration counts (the key phase alone, docs/contract.md §3) — on rows built to break it
//! (each type's extremes, -1 and 0, heavy ties, sorted runs, widths that are not multiples of
//! 32, k ∈ {0, 1, M−1, M}), both modes, exact, with a precision (which integer rows ignore),
//! early stopping and a recall target, sorted and not: quarter-, half- and whole-warp rows,
//! rows that narrow, block rows (narrowing, and past their registers), split rows; and no
//! diagnostic on any.

use crate::common;

use common::{bisect, check_against_bisect as check, strategies};
use proptest::prelude::*;
use test_support::{IntElement, int_value, matrix_int, pick_k};
use topk_ref::{Bisect, Element, Mode};
use warp_sim::rtopk::Strategy as Launch;
use warp_sim::{ElemType, KernelArgs, SimConfig, Simulator};

/// Every family that holds the row, as `pick` chooses, on one matrix.
fn any_family<T: IntElement + Element>(
    (n, m, x): (usize, usize, Vec<T>),
    (which, frac): (u8, f64),
    (smallest, sorted, b, pick): (bool, bool, Bisect, usize),
) -> Result<(), TestCaseError> {
    let k = pick_k(m, which, frac);
    let choices = strategies(m, ElemType::I32);
    let strategy = choices[pick % choices.len()];
    let config = SimConfig { strategy, sorted, ..SimConfig::default() };
    check(config, (n, m, &x), k, Mode::from_smallest(smallest), b).map(|_| ())
}

/// `(n, m, values)`: `rows` integer rows of a width in `widths`.
fn matrix_in<T: IntElement>(
    rows: std::ops::Range<usize>,
    widths: std::ops::RangeInclusive<usize>,
) -> impl Strategy<Value = (usize, usize, Vec<T>)> {
    (rows, widths)
        .prop_flat_map(|(n, m)| (Just(n), Just(m), prop::collection::vec(int_value::<T>(), n * m)))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// i8: every strategy that holds the row.
    #[test]
    fn every_family_equals_bisect_on_i8(x in matrix_int::<i8>(700), which in 0u8..6,
                                        frac in 0.0f64..1.0, smallest: bool, sorted: bool,
                                        b in bisect(), pick in 0usize..5) {
        any_family(x, (which, frac), (smallest, sorted, b, pick))?;
    }

    /// u8.
    #[test]
    fn every_family_equals_bisect_on_u8(x in matrix_int::<u8>(700), which in 0u8..6,
                                        frac in 0.0f64..1.0, smallest: bool, sorted: bool,
                                        b in bisect(), pick in 0usize..5) {
        any_family(x, (which, frac), (smallest, sorted, b, pick))?;
    }

    /// i16.
    #[test]
    fn every_family_equals_bisect_on_i16(x in matrix_int::<i16>(700), which in 0u8..6,
                                         frac in 0.0f64..1.0, smallest: bool, sorted: bool,
                                         b in bisect(), pick in 0usize..5) {
        any_family(x, (which, frac), (smallest, sorted, b, pick))?;
    }

    /// i32.
    #[test]
    fn every_family_equals_bisect_on_i32(x in matrix_int::<i32>(700), which in 0u8..6,
                                         frac in 0.0f64..1.0, smallest: bool, sorted: bool,
                                         b in bisect(), pick in 0usize..5) {
        any_family(x, (which, frac), (smallest, sorted, b, pick))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Whole-warp rows that narrow (M 257..1024, k < 128, exact), wide rows, block rows, block
    /// rows that narrow (M up to 8192); sorted or not; early stopping.
    #[test]
    fn wide_rows_equal_bisect(a in matrix_in::<i32>(1..3, 257..=8192),
                              b in matrix_in::<u8>(1..2, 257..=8192),
                              frac in 0.0f64..0.2, smallest: bool, sorted: bool,
                              steps in 0u32..9) {
        let mode = Mode::from_smallest(smallest);
        let config = SimConfig { sorted, ..SimConfig::default() };
        let k = 1 + (frac * a.1 as f64) as usize;
        check(config, (a.0, a.1, &a.2), k, mode, Bisect::exact())?;
        let k = 1 + (frac * b.1 as f64) as usize;
        let s = if steps == 0 { Bisect::exact() } else { Bisect::early_stopping(steps) };
        check(config, (b.0, b.1, &b.2), k, mode, s)?;
    }

    /// Split rows of integers (their candidates an integer matrix), forced.
    #[test]
    fn split_rows_equal_bisect(a in matrix_in::<i16>(1..3, 4096..=9000),
                               b in matrix_in::<i8>(1..2, 4096..=9000),
                               frac in 0.0f64..1.0, smallest: bool, sorted: bool) {
        let k = 1 + (frac * 255.0) as usize;
        let config = SimConfig { strategy: Launch::Split, sorted, ..SimConfig::default() };
        let mode = Mode::from_smallest(smallest);
        check(config, (a.0, a.1, &a.2), k, mode, Bisect::exact())?;
        check(config, (b.0, b.1, &b.2), k, mode, Bisect::exact())?;
    }
}

/// The families the suites above reach on integer rows, one shape each, and the unit names:
/// the f32 plan's with the type's suffix.
#[test]
fn every_family_runs_its_integer_unit() {
    let shapes: &[(usize, usize, Launch, &str)] = &[
        (8, 2, Launch::Quarter, "rtopk_quarter_rows_1"),
        (33, 5, Launch::Half, "rtopk_half_rows_4"),
        (256, 9, Launch::Warp, "rtopk_warp_rows_8"),
        (1000, 100, Launch::Auto, "rtopk_warp_rows_32"),
        (2100, 400, Launch::Auto, "rtopk_block_rows"),
        (5001, 300, Launch::Auto, "rtopk_block_rows_narrow"),
        (20_000, 700, Launch::Auto, "rtopk_cluster_rows"),
    ];
    for (si, &(m, k, strategy, kernel)) in shapes.iter().enumerate() {
        let n = if m > 2000 { 1 } else { 3 };
        let x: Vec<i32> =
            (0..n * m).map(|i| (i as i32).wrapping_mul(-1_640_531_535) >> (si % 20)).collect();
        let mode = if si % 2 == 0 { Mode::Largest } else { Mode::Smallest };
        let config = SimConfig { strategy, sorted: si % 3 == 0, ..SimConfig::default() };
        let args = KernelArgs { n, m, k, mode, bisect: Bisect::exact(), mutant: None };
        assert_eq!(Simulator::new(config).plan(&args).unwrap().unit.to_string(), kernel);
        let fail = |e: TestCaseError| panic!("{kernel} M={m} k={k} {mode:?}: {e}");
        check(config, (n, m, &x), k, mode, Bisect::exact()).unwrap_or_else(fail);
        let bytes: Vec<u8> = x.iter().map(|&v| v as u8).collect();
        check(config, (n, m, &bytes), k, mode, Bisect::exact()).unwrap_or_else(fail);
    }
}
