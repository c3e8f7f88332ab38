//! Every baseline on rows of the integer types (`i8`, `u8`, `i16`, `i32`, `i64`) and `f64`
//! against the oracle: integer extremes (MIN, MAX, 0, -1), heavy ties, sorted runs; `f64` NaN
//! of both signs and payloads, ±inf, ±0, subnormals, ±f64::MAX; widths that are not multiples
//! of 32, k ∈ {0, 1, M−1, M} and random, both modes, sorted and unsorted, plain and ragged.
//! The baselines whose designs pack a key and an index into 64 bits take keys of at most 32
//! bits: on `f64` and `i64` rows the drivers refuse them with a typed error; `torch-radix`
//! (PyTorch's radix select takes `int64` and `double`) runs on every type.

use baselines::{Air, Base, DrTopK, GridSelect, SortChoose, TorchRadix, WarpSelect};
use ndarray::Array2;
use proptest::prelude::*;
use test_support::{
    SPECIALS_F64, matrix_f64, matrix_int, pick_k, poison_tails, ragged_shape, row_f64, row_int,
    specials_int,
};
use topk_ref::oracle::{canonical_indices, canonical_ragged, canonical_sorted_indices};
use topk_ref::{
    Element, KPerRow, Mode, Options, RowTopKOf, Rows, TopKError, Wanted, topk_ragged, topk_row,
};

/// Every baseline and its structural variants, for rows of `E`.
fn baselines<E: Element>() -> Vec<Box<dyn RowTopKOf<E>>> {
    vec![
        E::boxed(Air::default()),
        E::boxed(Air::always_buffer()),
        E::boxed(Air::new(1).expect("alpha 1")),
        E::boxed(GridSelect::default()),
        E::boxed(GridSelect::with_blocks(3).expect("3 blocks")),
        E::boxed(WarpSelect),
        E::boxed(DrTopK::default()),
        E::boxed(DrTopK::new(2, Base::Bitonic).expect("beta 2")),
        E::boxed(DrTopK::new(1, Base::Radix).expect("beta 1")),
        E::boxed(TorchRadix),
        E::boxed(SortChoose),
    ]
}

fn fail(e: impl ToString) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

/// Every baseline that takes `E`: the oracle's indices in the requested order and the input's
/// bits as values; every other one: [`TopKError::UnsupportedElement`].
fn check_all<E: Element>(row: &[E], k: usize, opts: Options) -> Result<(), TestCaseError> {
    let want = if opts.sorted {
        canonical_sorted_indices(row, k, opts.mode)
    } else {
        canonical_indices(row, k, opts.mode)
    };
    let bits = <E::Key as topk_ref::KeyBits>::BITS;
    for algo in baselines::<E>() {
        let got = topk_row(algo.as_ref(), row, k, opts);
        if bits > algo.max_key_bits() {
            let refused = matches!(got, Err(TopKError::UnsupportedElement { element, .. })
                if element == E::NAME);
            prop_assert!(refused, "{} on {}: {:?}", algo.name(), E::NAME, got.map(|r| r.indices));
            continue;
        }
        let got = got.map_err(fail)?;
        prop_assert_eq!(&got.indices, &want, "{} {} k={} {:?}", algo.name(), E::NAME, k, opts);
        for (v, &i) in got.values.iter().zip(&got.indices) {
            prop_assert_eq!(v.to_bits(), row[i as usize].to_bits());
        }
    }
    Ok(())
}

fn cases() -> ProptestConfig {
    ProptestConfig { cases: 160, ..ProptestConfig::default() }
}

const WIDTH: usize = 700;

macro_rules! integer_properties {
    ($($name:ident: $t:ty),*) => {$(
        proptest! {
            #![proptest_config(cases())]
            #[test]
            fn $name(row in row_int::<$t>(WIDTH), which in 0u8..6, frac in 0.0f64..1.0,
                     smallest: bool, sorted: bool) {
                let k = pick_k(row.len(), which, frac);
                check_all::<$t>(&row, k, Options { mode: Mode::from_smallest(smallest), sorted })?;
            }
        }
    )*};
}

integer_properties!(i8_rows: i8, u8_rows: u8, i16_rows: i16, i32_rows: i32, i64_rows: i64);

proptest! {
    #![proptest_config(cases())]
    #[test]
    fn f64_rows(row in row_f64(WIDTH), which in 0u8..6, frac in 0.0f64..1.0, smallest: bool,
                sorted: bool) {
        let k = pick_k(row.len(), which, frac);
        check_all::<f64>(&row, k, Options { mode: Mode::from_smallest(smallest), sorted })?;
    }
}

/// Ragged requests: every baseline that takes `E` against the ragged oracle; the others
/// refused with a typed error.
fn check_ragged<E: Element>(
    (n, m, mut values): (usize, usize, Vec<E>),
    shape: &test_support::RaggedShape,
    specials: [E; 4],
    opts: Options,
) -> Result<(), TestCaseError> {
    poison_tails(&mut values, m, &shape.lengths, shape.tail, specials);
    let x = Array2::from_shape_vec((n, m), values).map_err(fail)?;
    let k = if shape.per_row_k { KPerRow::PerRow(&shape.k) } else { KPerRow::One(shape.one_k()) };
    let rows = Rows { lengths: Some(&shape.lengths), k, hint: Some(&shape.random_hints) };
    let want = canonical_ragged(x.view(), &rows, opts).map_err(fail)?;
    let wanted = Wanted { iterations: false, threshold: true };
    let bits = <E::Key as topk_ref::KeyBits>::BITS;
    for algo in baselines::<E>() {
        let got = topk_ragged(algo.as_ref(), x.view(), &rows, opts, wanted);
        if bits > algo.max_key_bits() {
            prop_assert!(
                matches!(got, Err(TopKError::UnsupportedElement { .. })),
                "{}",
                algo.name()
            );
            continue;
        }
        let got = got.map_err(fail)?;
        prop_assert_eq!(&got.indices, &want.indices, "{} {}", algo.name(), E::NAME);
        let vb = |a: &Array2<E>| a.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        prop_assert_eq!(vb(&got.values), vb(&want.values), "{}", algo.name());
        let tb = |t: &Option<ndarray::Array1<f32>>| t.as_ref().map(|t| t.mapv(f32::to_bits));
        prop_assert_eq!(tb(&got.threshold), tb(&want.threshold), "{}", algo.name());
    }
    Ok(())
}

fn ragged_input<E: std::fmt::Debug + Clone>(
    matrix: impl Strategy<Value = (usize, usize, Vec<E>)>,
) -> impl Strategy<Value = ((usize, usize, Vec<E>), test_support::RaggedShape)> {
    matrix.prop_flat_map(|(n, m, v)| (Just((n, m, v)), ragged_shape(n, m)))
}

fn opts(smallest: bool, sorted: bool) -> Options {
    Options { mode: Mode::from_smallest(smallest), sorted }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn u8_ragged((input, shape) in ragged_input(matrix_int::<u8>(300)), smallest: bool,
                 sorted: bool) {
        check_ragged(input, &shape, specials_int::<u8>(), opts(smallest, sorted))?;
    }

    #[test]
    fn i32_ragged((input, shape) in ragged_input(matrix_int::<i32>(300)), smallest: bool,
                  sorted: bool) {
        check_ragged(input, &shape, specials_int::<i32>(), opts(smallest, sorted))?;
    }

    #[test]
    fn i64_ragged((input, shape) in ragged_input(matrix_int::<i64>(300)), smallest: bool,
                  sorted: bool) {
        check_ragged(input, &shape, specials_int::<i64>(), opts(smallest, sorted))?;
    }

    #[test]
    fn f64_ragged((input, shape) in ragged_input(matrix_f64(300)), smallest: bool,
                  sorted: bool) {
        check_ragged(input, &shape, SPECIALS_F64, opts(smallest, sorted))?;
    }
}

/// The refusal names the algorithm, the type and the widths, and nothing panics.
#[test]
fn wide_keys_are_refused_with_a_clear_message() {
    let row = [1i64, 2, 3];
    let err = topk_row(&Air::default(), &row, 2, Options::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "algorithm air does not take i64 rows: its keys have 64 bits, it takes keys of at most \
         32 bits"
    );
    let got = topk_row(&TorchRadix, &row, 2, Options::default()).unwrap();
    assert_eq!(got.indices, [1, 2]);
}
