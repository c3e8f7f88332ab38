//! The integer element types (`i8`, `u8`, `i16`, `i32`, `i64`) and `f64` through every
//! algorithm, against the oracle: integer rows with their extremes (MIN, MAX, 0, -1), heavy
//! ties and sorted runs; `f64` rows with NaN of both signs and payloads, ±inf, ±0, subnormals,
//! ±f64::MAX and values beyond the f32 range; widths that are not multiples of 32, k ∈ {0, 1,
//! M−1, M} and random, both modes, sorted and unsorted output, plain and ragged requests. The
//! oracle itself is checked against a sort by the types' own comparison, and `bisect`'s
//! integer iteration counts against a direct reading of the rule in `topk_ref::bisect`
//! ("Integer rows"), written on `i128` values.

use std::cmp::Ordering;

use ndarray::ArrayView2;
use proptest::prelude::*;
use test_support::{
    IntElement, RaggedShape, check_exact, check_same_ragged, fail, ragged_property, ragged_rows,
    reference_algorithms, row_property,
};
use topk_ref::bisect::max_iterations;
use topk_ref::oracle::{canonical_ragged, canonical_sorted_indices};
use topk_ref::{Bisect, Element, Mode, Options, Rows, Wanted, topk_ragged, topk_row};

const EXACT: Bisect = Bisect::exact();
const ALL: Wanted = Wanted { iterations: true, threshold: true };
/// Widest row of the property tests.
const WIDTH: usize = 700;

/// Every algorithm: the oracle's indices in the requested order, the input's bits as values.
fn check_all<E: Element>(row: &[E], k: usize, opts: Options) -> Result<(), TestCaseError> {
    for algo in reference_algorithms::<E>() {
        check_exact(algo.as_ref(), row, k, opts)?;
    }
    Ok(())
}

/// The oracle against a plain sort of the indices by `cmp` (the type's own order, larger
/// first in largest mode), ties by index.
fn check_oracle<E: Element>(
    row: &[E],
    k: usize,
    mode: Mode,
    cmp: impl Fn(E, E) -> Ordering,
) -> Result<(), TestCaseError> {
    let mut order: Vec<u32> = (0..row.len() as u32).collect();
    order.sort_by(|&a, &b| {
        let by_value = cmp(row[b as usize], row[a as usize]);
        let by_value = if mode == Mode::Smallest { by_value.reverse() } else { by_value };
        by_value.then(a.cmp(&b))
    });
    order.truncate(k);
    prop_assert_eq!(canonical_sorted_indices(row, k, mode), order, "{} {:?}", E::NAME, mode);
    Ok(())
}

/// `f64` order of docs/contract.md §1, larger = ranks first in largest mode and last in smallest mode:
/// NaN above `+inf` (so last in smallest mode), `-0 == +0`.
fn f64_cmp(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).expect("numbers compare"),
    }
}

/// `bisect`'s iteration count on an integer row by the rule in its module docs ("Integer
/// rows"), on `i128` ordered values (`v`, or `-v` in smallest mode): from the smallest and
/// largest, while `hi - lo > 1`, one test at `lo + (hi - lo) / 2` (rounding down), counting the
/// values `>= t`: `< k` lowers `hi`, `> k` raises `lo`, `== k` ends the search.
fn integer_rule<T: IntElement>(row: &[T], k: usize, mode: Mode) -> u32 {
    let ordered: Vec<i128> = row
        .iter()
        .map(|v| if mode == Mode::Smallest { -v.to_i128() } else { v.to_i128() })
        .collect();
    let (mut lo, mut hi) = (*ordered.iter().min().unwrap(), *ordered.iter().max().unwrap());
    let mut iterations = 0;
    while hi - lo > 1 {
        let t = lo + (hi - lo) / 2;
        let count = ordered.iter().filter(|&&o| o >= t).count();
        iterations += 1;
        match count.cmp(&k) {
            Ordering::Less => hi = t,
            Ordering::Greater => lo = t,
            Ordering::Equal => break,
        }
    }
    iterations
}

/// Every algorithm, the oracle, and `bisect`'s integer iteration counts by the rule.
fn check_integer_row<T: IntElement + Element>(
    row: &[T],
    k: usize,
    opts: Options,
) -> Result<(), TestCaseError> {
    let Options { mode, sorted } = opts;
    check_all(row, k, opts)?;
    check_oracle(row, k, mode, |a: T, b: T| IntElement::to_i128(a).cmp(&IntElement::to_i128(b)))?;
    if k > 0 {
        let got = topk_row(T::as_dyn(&EXACT), row, k, Options { mode, sorted }).map_err(fail)?;
        let it = got.stats.iterations.unwrap_or(u32::MAX);
        prop_assert_eq!(it, integer_rule(row, k, mode), "{} k={} {:?}", T::NAME, k, mode);
        prop_assert!(
            it < max_iterations::<T>(),
            "{} {}: at most one test per key bit",
            T::NAME,
            it
        );
        // Precision has nothing to stop on an integer row: the search stays exact.
        let approx = Bisect::with_precision(0.25).map_err(fail)?;
        let coarse =
            topk_row(T::as_dyn(&approx), row, k, Options { mode, sorted }).map_err(fail)?;
        prop_assert_eq!(&coarse.indices, &got.indices);
    }
    Ok(())
}

row_property!(256, check_integer_row(), WIDTH;
    i8_rows: i8, u8_rows: u8, i16_rows: i16, i32_rows: i32, i64_rows: i64,
);

/// Every algorithm, the oracle against the `f64` order, and `bisect`'s bound.
fn check_f64_row(row: &[f64], k: usize, opts: Options) -> Result<(), TestCaseError> {
    check_all(row, k, opts)?;
    check_oracle(row, k, opts.mode, f64_cmp)?;
    if k > 0 {
        let got = topk_row(&EXACT, row, k, opts).map_err(fail)?;
        let it = got.stats.iterations.unwrap_or(u32::MAX);
        prop_assert!(it <= max_iterations::<f64>(), "{}", it);
    }
    Ok(())
}

row_property!(256, check_f64_row(), WIDTH; f64_rows: f64);

/// Every algorithm on one ragged input (with random, NaN and ±inf hints, and each row's own
/// threshold as hint) against the ragged oracle: indices, values and thresholds bit for bit.
fn check_ragged<E: Element>(
    x: ArrayView2<'_, E>,
    shape: &RaggedShape,
    opts: Options,
) -> Result<(), TestCaseError> {
    let plain = ragged_rows(shape, None);
    let want = canonical_ragged(x, &plain, opts).map_err(fail)?;
    let own = want.threshold.clone().expect("the oracle reports thresholds").to_vec();
    let n = x.nrows();
    let hint_sets =
        [None, Some(shape.random_hints.clone()), Some(vec![f32::NAN; n]), Some(own.clone())];
    let mut counts = Vec::new();
    for hints in &hint_sets {
        let rows = Rows { hint: hints.as_deref(), ..plain };
        for algo in reference_algorithms::<E>() {
            let got = topk_ragged(algo.as_ref(), x, &rows, opts, ALL).map_err(fail)?;
            check_same_ragged(algo.name(), &got, &want)?;
            if let Some(it) = got.iterations {
                prop_assert!(it.iter().all(|&i| i <= max_iterations::<E>()));
                counts.push(it);
            }
        }
    }
    // bisect, without a hint and with a NaN hint: the same counts.
    prop_assert_eq!(&counts[0], &counts[2], "{}: a NaN hint is no hint", E::NAME);
    Ok(())
}

ragged_property!(96, check_ragged, 300;
    i8_ragged: i8, u8_ragged: u8, i16_ragged: i16, i32_ragged: i32, i64_ragged: i64,
    f64_ragged: f64,
);

/// Every algorithm selects `want` (sorted output) for each `(k, opts, want)` on `row`.
fn assert_by_hand<E: Element>(row: &[E], cases: &[(usize, Options, &[u32])]) {
    for algo in reference_algorithms::<E>() {
        for &(k, opts, want) in cases {
            let got = topk_row(algo.as_ref(), row, k, opts).unwrap().indices;
            assert_eq!(got, want, "{} k={k} {opts:?}", algo.name());
        }
    }
}

const LARGEST: Options = Options { mode: Mode::Largest, sorted: true };
const SMALLEST: Options = Options { mode: Mode::Smallest, sorted: true };

/// Hand-checked rows: the extremes of each integer type, both modes, ties to the lower index.
#[test]
fn integer_extremes_by_hand() {
    let row = [0i64, i64::MAX, -1, i64::MIN, i64::MAX, 1, i64::MIN];
    assert_by_hand(&row, &[(3, LARGEST, &[1, 4, 5]), (3, SMALLEST, &[3, 6, 2])]);
    let row = [u8::MAX, 0, 7, u8::MAX, 0];
    assert_by_hand(&row, &[(2, SMALLEST, &[1, 4]), (3, LARGEST, &[0, 3, 2])]);
    assert_by_hand(&[i8::MIN, i8::MAX, -1, 0], &[(4, LARGEST, &[1, 3, 2, 0])]);
}

/// `f64` specials by hand: NaN of either sign above `+inf`, `-0 == +0` tied by index, values
/// beyond `f32::MAX` and below the least f32 subnormal kept apart.
#[test]
fn f64_specials_by_hand() {
    let nan = f64::from_bits(0xFFF8_0000_0000_0001);
    let row = [1e300, -0.0, f64::INFINITY, nan, 0.0, 5e-324, f64::MAX, 1e301];
    assert_by_hand(&row, &[(8, LARGEST, &[3, 2, 6, 7, 0, 5, 1, 4]), (3, SMALLEST, &[1, 4, 5])]);
}

/// Integer iteration counts: a row spanning the whole of `i32` needs at most 32 tests, and a
/// row of `u8` at most 8, whatever k.
#[test]
fn integer_iteration_bounds() {
    let mut wide: Vec<i32> =
        (0..64).map(|i: i32| i32::MIN.wrapping_add(i.wrapping_mul(0x0400_0000) + i)).collect();
    wide.extend([i32::MIN, i32::MAX]);
    for k in 1..=wide.len() {
        let it = topk_row(&EXACT, &wide, k, Options::default()).unwrap().stats.iterations;
        assert!(it.unwrap() <= 32, "k={k}: {it:?}");
    }
    let bytes: Vec<u8> = (0..=255).collect();
    for k in 1..=256 {
        let it = topk_row(&EXACT, &bytes, k, Options::default()).unwrap().stats.iterations;
        assert!(it.unwrap() <= 8, "k={k}: {it:?}");
    }
    assert_eq!((max_iterations::<u8>(), max_iterations::<i64>()), (9, 65));
    assert_eq!((max_iterations::<f64>(), max_iterations::<f32>()), (96, 64));
}
