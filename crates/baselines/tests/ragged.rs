//! Every baseline on ragged requests (docs/contract.md §5) through topk-ref's ragged driver,
//! against the ragged oracle: rows of their own length (0 and M included), k per row (0, above
//! the length, M), NaN, ±inf or copies of the valid values past each length (never selected),
//! every float pattern of the row generators, f32, f16 and bf16, both modes, sorted and
//! unsorted, thresholds bit for bit, and hints (which no baseline uses: the answer is the same).

use baselines::{Air, Base, DrTopK, GridSelect, SortChoose, TorchRadix, WarpSelect};
use ndarray::{Array2, ArrayView2};
use proptest::prelude::*;
use test_support::{
    Float16, RaggedShape, SPECIALS_F32, matrix, matrix16, poison_tails, ragged_shape, specials16,
};
use topk_ref::oracle::canonical_ragged;
use topk_ref::{
    Element, KPerRow, Mode, Options, RaggedTopK, RowTopKOf, Rows, Wanted, bf16, f16, topk_ragged,
};

fn fail(e: impl ToString) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

/// The baselines and the configurations that change their structure.
fn check_all<E: Element>(
    x: ArrayView2<'_, E>,
    shape: &RaggedShape,
    opts: Options,
) -> Result<(), TestCaseError> {
    let k = if shape.per_row_k { KPerRow::PerRow(&shape.k) } else { KPerRow::One(shape.one_k()) };
    let rows = Rows { lengths: Some(&shape.lengths), k, hint: None };
    let want = canonical_ragged(x, &rows, opts).map_err(fail)?;
    let hinted = Rows { hint: Some(&shape.random_hints), ..rows };
    let (air, air_buffer) = (Air::default(), Air::always_buffer());
    let (grid, grid3) = (GridSelect::default(), GridSelect::with_blocks(3).unwrap());
    let (dr, dr_bitonic) = (DrTopK::default(), DrTopK::new(2, Base::Bitonic).unwrap());
    let algos: [&dyn RowTopKOf<E>; 8] = [
        E::as_dyn(&air),
        E::as_dyn(&air_buffer),
        E::as_dyn(&grid),
        E::as_dyn(&grid3),
        E::as_dyn(&WarpSelect),
        E::as_dyn(&dr),
        E::as_dyn(&dr_bitonic),
        E::as_dyn(&TorchRadix),
    ];
    let sort = E::as_dyn(&SortChoose);
    let wanted = Wanted { iterations: true, threshold: true };
    for algo in algos.into_iter().chain([sort]) {
        for rows in [&rows, &hinted] {
            let got = topk_ragged(algo, x, rows, opts, wanted).map_err(fail)?;
            check_same(algo.name(), &got, &want)?;
            prop_assert!(got.iterations.is_none(), "{} reports no iterations", algo.name());
        }
    }
    Ok(())
}

fn check_same<E: Element>(
    name: &str,
    got: &RaggedTopK<E>,
    want: &RaggedTopK<E>,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(&got.indices, &want.indices, "{} {}", name, E::NAME);
    let bits = |a: &Array2<E>| a.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    prop_assert_eq!(bits(&got.values), bits(&want.values), "{} {} values", name, E::NAME);
    let tbits = |t: &RaggedTopK<E>| t.threshold.as_ref().map(|t| t.mapv(f32::to_bits));
    prop_assert_eq!(tbits(got), tbits(want), "{} {} thresholds", name, E::NAME);
    Ok(())
}

fn ragged_f32(max_width: usize) -> impl Strategy<Value = (usize, usize, Vec<f32>, RaggedShape)> {
    matrix(max_width).prop_flat_map(|(n, m, values)| {
        (Just(n), Just(m), Just(values), ragged_shape(n, m)).prop_map(|(n, m, mut v, shape)| {
            poison_tails(&mut v, m, &shape.lengths, shape.tail, SPECIALS_F32);
            (n, m, v, shape)
        })
    })
}

fn ragged16<T: Float16>(
    max_width: usize,
) -> impl Strategy<Value = (usize, usize, Vec<T>, RaggedShape)> {
    matrix16::<T>(max_width).prop_flat_map(|(n, m, values)| {
        (Just(n), Just(m), Just(values), ragged_shape(n, m)).prop_map(|(n, m, mut v, shape)| {
            poison_tails(&mut v, m, &shape.lengths, shape.tail, specials16::<T>());
            (n, m, v, shape)
        })
    })
}

fn options(smallest: bool, sorted: bool) -> Options {
    Options { mode: Mode::from_smallest(smallest), sorted }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 768, ..ProptestConfig::default() })]

    #[test]
    fn f32_ragged_rows_match_the_oracle(
        (n, m, values, shape) in ragged_f32(700), smallest: bool, sorted: bool,
    ) {
        let x = Array2::from_shape_vec((n, m), values).unwrap();
        check_all(x.view(), &shape, options(smallest, sorted))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, ..ProptestConfig::default() })]

    #[test]
    fn f16_ragged_rows_match_the_oracle(
        (n, m, values, shape) in ragged16::<f16>(400), smallest: bool, sorted: bool,
    ) {
        let x = Array2::from_shape_vec((n, m), values).unwrap();
        check_all(x.view(), &shape, options(smallest, sorted))?;
    }

    #[test]
    fn bf16_ragged_rows_match_the_oracle(
        (n, m, values, shape) in ragged16::<bf16>(400), smallest: bool, sorted: bool,
    ) {
        let x = Array2::from_shape_vec((n, m), values).unwrap();
        check_all(x.view(), &shape, options(smallest, sorted))?;
    }
}
