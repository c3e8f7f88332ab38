//! Every baseline on rows of the 16-bit types (`f16`, `bf16`) against the oracle: every NaN
//! payload of either sign, ±inf, ±0, subnormals, the largest finite values, heavy ties, widths
//! that are not multiples of 32, k ∈ {0, 1, M−1, M} and random, both modes, sorted and
//! unsorted; the structural variants too; and all 65,536 bit patterns of each type, shuffled.

use baselines::{Air, Base, DrTopK, GridSelect, SortChoose, TorchRadix, WarpSelect};
use test_support::{Float16, check_exact_and_work, row_bf16, row_f16, row_property};
use topk_ref::oracle::canonical_sorted_indices;
use topk_ref::{Element, Mode, Options, bf16, f16, topk_row};

/// Widest row of the property tests.
const WIDTH: usize = 1500;

row_property!(128, check_exact_and_work(&Air::default());
    air_f16: f16 = row_f16(WIDTH),
    air_bf16: bf16 = row_bf16(WIDTH));
row_property!(128, check_exact_and_work(&Air::always_buffer());
    air_always_buffering_f16: f16 = row_f16(WIDTH),
    air_always_buffering_bf16: bf16 = row_bf16(WIDTH));
row_property!(128, check_exact_and_work(&Air::new(1).unwrap());
    air_alpha_1_f16: f16 = row_f16(WIDTH),
    air_alpha_1_bf16: bf16 = row_bf16(WIDTH));
row_property!(128, check_exact_and_work(&GridSelect::default());
    gridselect_f16: f16 = row_f16(WIDTH),
    gridselect_bf16: bf16 = row_bf16(WIDTH));
row_property!(128, check_exact_and_work(&GridSelect::with_blocks(3).unwrap());
    gridselect_3_f16: f16 = row_f16(WIDTH),
    gridselect_3_bf16: bf16 = row_bf16(WIDTH));
row_property!(128, check_exact_and_work(&WarpSelect);
    warpselect_f16: f16 = row_f16(WIDTH),
    warpselect_bf16: bf16 = row_bf16(WIDTH));
row_property!(128, check_exact_and_work(&DrTopK::default());
    drtopk_f16: f16 = row_f16(WIDTH),
    drtopk_bf16: bf16 = row_bf16(WIDTH));
row_property!(128, check_exact_and_work(&DrTopK::new(2, Base::Bitonic).unwrap());
    drtopk_bitonic_f16: f16 = row_f16(WIDTH),
    drtopk_bitonic_bf16: bf16 = row_bf16(WIDTH));
row_property!(128, check_exact_and_work(&DrTopK::new(1, Base::Radix).unwrap());
    drtopk_beta_1_f16: f16 = row_f16(WIDTH),
    drtopk_beta_1_bf16: bf16 = row_bf16(WIDTH));
row_property!(128, check_exact_and_work(&TorchRadix);
    torch_radix_f16: f16 = row_f16(WIDTH),
    torch_radix_bf16: bf16 = row_bf16(WIDTH));
row_property!(128, check_exact_and_work(&SortChoose);
    sort_f16: f16 = row_f16(WIDTH),
    sort_bf16: bf16 = row_bf16(WIDTH));

/// The 65,536 bit patterns of `T`, shuffled, through the six baselines for several k, both
/// modes. GridSelect and WarpSelect stop at k = 2048, their GPU implementations' limit (paper
/// 002, §5.1), which also keeps their running lists (and this test) short.
fn every_pattern<T: Float16 + Element>(row: &[T]) {
    let m = row.len();
    for mode in [Mode::Largest, Mode::Smallest] {
        let sorted = canonical_sorted_indices(row, m, mode);
        for k in [0, 1, 2047, 31_744, m - 1, m] {
            let mut want = sorted[..k].to_vec();
            want.sort_unstable();
            for name in baselines::BASELINE_NAMES {
                if k > 2048 && matches!(name, "gridselect" | "warpselect") {
                    continue;
                }
                let algo = baselines::by_name_for::<T>(name).unwrap();
                let got = topk_row(algo.as_ref(), row, k, Options { mode, sorted: false });
                assert_eq!(got.unwrap().indices, want, "{name} {} k={k} {mode:?}", T::NAME);
            }
        }
    }
}

#[test]
fn every_f16_bit_pattern_shuffled() {
    every_pattern(&test_support::every_f16(3));
}

#[test]
fn every_bf16_bit_pattern_shuffled() {
    every_pattern(&test_support::every_bf16(4));
}
