//! Ragged requests (docs/contract.md §5) through every algorithm, against the ragged oracle:
//! rows of their own length (0 and M included), k per row (0, above the length, M), values
//! past the length that must never be selected (NaN of both signs, ±inf, copies of the valid
//! values: ties with the k-th value outside the prefix), every float pattern of the row
//! generators (NaN payloads, ±inf, ±0, subnormals, heavy ties), widths that are not multiples
//! of 32, f32, f16 and bf16, both modes, sorted and unsorted, and hints (random, NaN, ±inf,
//! each row's own threshold, the threshold of a perturbed row). Thresholds are checked bit for
//! bit; `bisect`'s iteration counts are those of the plain row, 0 for a row that selects
//! nothing, and with the row's own threshold as hint never above the count without.

use ndarray::{Array2, ArrayView2};
use proptest::prelude::*;
use test_support::{
    HintKind, RaggedShape, check_same_ragged, fail, matrix, ragged_matrix, ragged_property,
    ragged_rows as rows_of, reference_algorithms,
};
use topk_ref::oracle::canonical_ragged;
use topk_ref::{
    Bisect, Bitonic, Bucket, Element, Heap, Mode, Options, Quickselect, Radix, RaggedTopK,
    RowTopKOf, Rows, Wanted, bf16, f16, topk_ragged, topk_row,
};

/// Exact bisection (a constant, so that borrowed trait objects of it live long enough).
const EXACT: Bisect = Bisect::exact();

const ALL: Wanted = Wanted { iterations: true, threshold: true };

/// The hints of `shape.hint` for `x` (`None`: no hint).
fn hints_for<E: Element>(
    x: ArrayView2<'_, E>,
    shape: &RaggedShape,
    opts: Options,
) -> Result<Option<Vec<f32>>, TestCaseError> {
    let n = x.nrows();
    let thresholds = |x: ArrayView2<'_, E>| -> Result<Vec<f32>, TestCaseError> {
        let oracle = canonical_ragged(x, &rows_of(shape, None), opts).map_err(fail)?;
        Ok(oracle.threshold.expect("the oracle reports thresholds").to_vec())
    };
    Ok(match shape.hint {
        HintKind::None => None,
        HintKind::Random => Some(shape.random_hints.clone()),
        HintKind::Nan => Some(vec![f32::NAN; n]),
        HintKind::PosInf => Some(vec![f32::INFINITY; n]),
        HintKind::NegInf => Some(vec![f32::NEG_INFINITY; n]),
        HintKind::Exact => Some(thresholds(x)?),
        HintKind::Perturbed => {
            // Every fifth value moved by 1 % (and zeros to a small number): a decode step.
            let mut y = x.to_owned();
            for (j, v) in y.iter_mut().enumerate().filter(|(j, _)| j % 5 == 2) {
                let f = v.to_f32();
                *v = E::from_f32(if f == 0.0 { 0.125 } else { f * 1.01 + j as f32 * 1e-3 });
            }
            Some(thresholds(y.view())?)
        }
    })
}

/// Every algorithm on one ragged input, with the shape's hints, against the oracle; then
/// `bisect`'s iteration counts.
fn check_ragged<E: Element>(
    x: ArrayView2<'_, E>,
    shape: &RaggedShape,
    opts: Options,
) -> Result<(), TestCaseError> {
    let hints = hints_for(x, shape, opts)?;
    let rows = rows_of(shape, hints.as_deref());
    let want = canonical_ragged(x, &rows, opts).map_err(fail)?;
    for algo in reference_algorithms::<E>() {
        let got = topk_ragged(algo.as_ref(), x, &rows, opts, ALL).map_err(fail)?;
        check_same_ragged(algo.name(), &got, &want)?;
    }
    check_bisect_iterations(x, shape, hints.as_deref(), opts)
}

/// `bisect`'s counts: without a hint, each row's count is the plain row's (its valid prefix,
/// its k) and 0 where nothing is selected; with each row's own threshold as hint, never more.
fn check_bisect_iterations<E: Element>(
    x: ArrayView2<'_, E>,
    shape: &RaggedShape,
    hints: Option<&[f32]>,
    opts: Options,
) -> Result<(), TestCaseError> {
    let bisect = E::as_dyn(&EXACT);
    let plain = topk_ragged(bisect, x, &rows_of(shape, None), opts, ALL).map_err(fail)?;
    let plain_it = plain.iterations.expect("bisect reports iterations");
    let hinted = topk_ragged(bisect, x, &rows_of(shape, hints), opts, ALL).map_err(fail)?;
    let hinted_it = hinted.iterations.expect("bisect reports iterations");
    let rows = rows_of(shape, None);
    for r in 0..x.nrows() {
        let (len, k) = (rows.length(r, x.ncols()), rows.selected(r, x.ncols()));
        if k == 0 {
            prop_assert_eq!((plain_it[r], hinted_it[r]), (0, 0), "row {} selects nothing", r);
            continue;
        }
        let row: Vec<E> = x.row(r).iter().take(len).copied().collect();
        let one = topk_row(bisect, &row, k, opts).map_err(fail)?;
        prop_assert_eq!(Some(plain_it[r]), one.stats.iterations, "row {}", r);
        prop_assert!(hinted_it[r] <= topk_ref::bisect::max_iterations::<E>());
        if shape.hint == HintKind::Exact {
            prop_assert!(
                hinted_it[r] <= plain_it[r],
                "row {}: {} iterations with its own threshold as hint, {} without",
                r,
                hinted_it[r],
                plain_it[r]
            );
        }
        if matches!(shape.hint, HintKind::None | HintKind::Nan) {
            prop_assert_eq!(hinted_it[r], plain_it[r], "row {}: a NaN hint is no hint", r);
        }
    }
    Ok(())
}

fn options(smallest: bool, sorted: bool) -> Options {
    Options { mode: Mode::from_smallest(smallest), sorted }
}

ragged_property!(1024, check_ragged, 700; f32_ragged_rows_match_the_oracle: f32);
ragged_property!(512, check_ragged, 400;
    f16_ragged_rows_match_the_oracle: f16, bf16_ragged_rows_match_the_oracle: bf16,
);

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Any f32 bit pattern as a hint: the answer of no hint.
    #[test]
    fn any_hint_bits_give_the_answer(
        (x, shape) in ragged_matrix::<f32>(300), bits in any::<u32>(), smallest: bool,
    ) {
        let opts = options(smallest, false);
        let hints = vec![f32::from_bits(bits); x.nrows()];
        let want = canonical_ragged(x.view(), &rows_of(&shape, None), opts).unwrap();
        let rows = rows_of(&shape, Some(&hints));
        let got = topk_ragged(&Bisect::exact(), x.view(), &rows, opts, ALL);
        check_same_ragged("bisect", &got.unwrap(), &want)?;
    }
}

// The row's own threshold as hint, on every row of the hostile generators with whole rows and
// every k (the property the hint design guarantees: the hint test ends the search).
proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    #[test]
    fn own_threshold_hint_never_costs_more(
        (n, m, values) in matrix(300), which in 0u8..6, frac in 0.0f64..1.0, smallest: bool,
    ) {
        let x = Array2::from_shape_vec((n, m), values).unwrap();
        let k = test_support::pick_k(m, which, frac);
        let shape = RaggedShape {
            lengths: vec![m; n],
            k: vec![k; n],
            per_row_k: false,
            tail: test_support::Tail::Keep,
            hint: HintKind::Exact,
            random_hints: vec![0.0; n],
        };
        check_ragged(x.view(), &shape, options(smallest, false))?;
    }
}

/// Decode steps: rows of normal scores, 2 % of the values redrawn between steps; the previous
/// step's thresholds as hints at least halve the mean bisection count, with the exact answer.
#[test]
fn previous_step_thresholds_halve_the_iterations() {
    use topk_ref::Family;
    let (n, m, k) = (64, 4096, 256);
    let step0 = Family::Normal.matrix(n, m, 11).unwrap();
    let fresh = Family::Normal.matrix(n, m, 12).unwrap();
    let mut step1 = step0.clone();
    for ((r, c), v) in step1.indexed_iter_mut() {
        if (r * 7919 + c * 104_729) % 50 == 0 {
            *v = fresh[[r, c]];
        }
    }
    let opts = Options::default();
    let first = topk_ragged(&Bisect::exact(), step0.view(), &Rows::new(k), opts, ALL).unwrap();
    let hints = first.threshold.unwrap().to_vec();
    let plain = topk_ragged(&Bisect::exact(), step1.view(), &Rows::new(k), opts, ALL).unwrap();
    let rows = Rows::new(k).with_hint(&hints);
    let hinted = topk_ragged(&Bisect::exact(), step1.view(), &rows, opts, ALL).unwrap();
    assert_eq!(hinted.indices, plain.indices);
    let sum = |t: &RaggedTopK| t.iterations.as_ref().unwrap().iter().sum::<u32>();
    let (with, without) = (sum(&hinted), sum(&plain));
    assert!(2 * with <= without, "{with} iterations with hints, {without} without");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Whole rows and one k: the plain driver's answer and iteration counts, for every
    /// algorithm (approximate bisection included, whose hints are ignored).
    #[test]
    fn whole_rows_are_the_plain_driver(
        (n, m, values) in matrix(700), which in 0u8..6, frac in 0.0f64..1.0,
        smallest: bool, sorted: bool, hint in prop_oneof![Just(f32::NAN), -10.0f32..10.0],
    ) {
        let x = Array2::from_shape_vec((n, m), values).unwrap();
        let k = test_support::pick_k(m, which, frac);
        let opts = options(smallest, sorted);
        let hints = vec![hint; n];
        let early = Bisect::early_stopping(5);
        let coarse = Bisect::with_precision(0.01).unwrap();
        let algos: [&dyn RowTopKOf<f32>; 8] =
            [&Heap, &Quickselect, &Radix, &Bucket, &Bitonic, &EXACT, &early, &coarse];
        for algo in algos {
            let mut plain = topk_ref::TopK::empty();
            let work = topk_ref::topk_rows_into_counted(algo, x.view(), k, opts, &mut plain);
            let work = work.map_err(fail)?;
            let got = topk_ragged(algo, x.view(), &Rows::new(k), opts, ALL).map_err(fail)?;
            prop_assert_eq!(got.work, work, "{}", algo.name());
            prop_assert_eq!(&got.indices, &plain.indices, "{}", algo.name());
            prop_assert_eq!(&got.iterations, &plain.iterations, "{}", algo.name());
            let bits = |a: &Array2<f32>| a.mapv(f32::to_bits);
            prop_assert_eq!(bits(&got.values), bits(&plain.values), "{}", algo.name());
            if !algo.is_exact() {
                let rows = Rows::new(k).with_hint(&hints);
                let hinted = topk_ragged(algo, x.view(), &rows, opts, ALL).map_err(fail)?;
                prop_assert_eq!(&hinted.indices, &plain.indices, "{} ignores hints", algo.name());
                prop_assert_eq!(&hinted.iterations, &plain.iterations, "{}", algo.name());
            }
        }
    }
}
