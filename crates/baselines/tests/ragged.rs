//! Every baseline on ragged requests (docs/contract.md §5) through topk-ref's ragged driver,
//! against the ragged oracle: rows of their own length (0 and M included), k per row (0, above
//! the length, M), NaN, ±inf or copies of the valid values past each length (never selected),
//! every float pattern of the row generators, f32, f16 and bf16, both modes, sorted and
//! unsorted, thresholds bit for bit, and hints (which no baseline uses: the answer is the same).

use baselines::{Air, Base, DrTopK, GridSelect, SortChoose, TorchRadix, WarpSelect};
use ndarray::ArrayView2;
use proptest::prelude::*;
use test_support::{RaggedShape, check_same_ragged, fail, ragged_property, ragged_rows};
use topk_ref::oracle::canonical_ragged;
use topk_ref::{Element, Options, RowTopKOf, Wanted, bf16, f16, topk_ragged};

/// The baselines and the configurations that change their structure.
fn check_all<E: Element>(
    x: ArrayView2<'_, E>,
    shape: &RaggedShape,
    opts: Options,
) -> Result<(), TestCaseError> {
    let rows = ragged_rows(shape, None);
    let want = canonical_ragged(x, &rows, opts).map_err(fail)?;
    let hinted = ragged_rows(shape, Some(&shape.random_hints));
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
            check_same_ragged(algo.name(), &got, &want)?;
            prop_assert!(got.iterations.is_none(), "{} reports no iterations", algo.name());
        }
    }
    Ok(())
}

ragged_property!(768, check_all, 700; f32_ragged_rows_match_the_oracle: f32);
ragged_property!(384, check_all, 400;
    f16_ragged_rows_match_the_oracle: f16, bf16_ragged_rows_match_the_oracle: bf16,
);
