//! Every baseline on rows of the integer types (`i8`, `u8`, `i16`, `i32`, `i64`) and `f64`
//! against the oracle: integer extremes (MIN, MAX, 0, -1), heavy ties, sorted runs; `f64` NaN
//! of both signs and payloads, ±inf, ±0, subnormals, ±f64::MAX; widths that are not multiples
//! of 32, k ∈ {0, 1, M−1, M} and random, both modes, sorted and unsorted, plain and ragged.
//! The baselines whose designs pack a key and an index into 64 bits take keys of at most 32
//! bits: on `f64` and `i64` rows the drivers refuse them with a typed error; `torch-radix`
//! (PyTorch's radix select takes `int64` and `double`) runs on every type.

use baselines::{Air, Base, DrTopK, GridSelect, SortChoose, TorchRadix, WarpSelect};
use proptest::prelude::*;
use test_support::{
    RaggedShape, check_exact, check_same_ragged, fail, ragged_property, ragged_rows, row_property,
};
use topk_ref::oracle::canonical_ragged;
use topk_ref::{Element, Options, RowTopKOf, TopKError, Wanted, topk_ragged, topk_row};

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

/// Every baseline that takes `E`: the oracle's indices in the requested order and the input's
/// bits as values; every other one: [`TopKError::UnsupportedElement`].
fn check_all<E: Element>(row: &[E], k: usize, opts: Options) -> Result<(), TestCaseError> {
    let bits = <E::Key as topk_ref::KeyBits>::BITS;
    for algo in baselines::<E>() {
        if bits > algo.max_key_bits() {
            let got = topk_row(algo.as_ref(), row, k, opts);
            let refused = matches!(got, Err(TopKError::UnsupportedElement { element, .. })
                if element == E::NAME);
            prop_assert!(refused, "{} on {}: {:?}", algo.name(), E::NAME, got.map(|r| r.indices));
            continue;
        }
        check_exact(algo.as_ref(), row, k, opts)?;
    }
    Ok(())
}

const WIDTH: usize = 700;

row_property!(160, check_all(), WIDTH;
    i8_rows: i8, u8_rows: u8, i16_rows: i16, i32_rows: i32, i64_rows: i64, f64_rows: f64,
);

/// Ragged requests: every baseline that takes `E` against the ragged oracle; the others
/// refused with a typed error.
fn check_ragged<E: Element>(
    x: ndarray::ArrayView2<'_, E>,
    shape: &RaggedShape,
    opts: Options,
) -> Result<(), TestCaseError> {
    let rows = ragged_rows(shape, Some(&shape.random_hints));
    let want = canonical_ragged(x, &rows, opts).map_err(fail)?;
    let wanted = Wanted { iterations: false, threshold: true };
    let bits = <E::Key as topk_ref::KeyBits>::BITS;
    for algo in baselines::<E>() {
        let got = topk_ragged(algo.as_ref(), x, &rows, opts, wanted);
        if bits > algo.max_key_bits() {
            prop_assert!(
                matches!(got, Err(TopKError::UnsupportedElement { .. })),
                "{}",
                algo.name()
            );
            continue;
        }
        check_same_ragged(algo.name(), &got.map_err(fail)?, &want)?;
    }
    Ok(())
}

ragged_property!(64, check_ragged, 300;
    u8_ragged: u8, i32_ragged: i32, i64_ragged: i64, f64_ragged: f64,
);

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
