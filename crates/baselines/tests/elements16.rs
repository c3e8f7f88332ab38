//! Every baseline on rows of the 16-bit types (`f16`, `bf16`) against the oracle: every NaN
//! payload of either sign, ±inf, ±0, subnormals, the largest finite values, heavy ties, widths
//! that are not multiples of 32, k ∈ {0, 1, M−1, M} and random, both modes, sorted and
//! unsorted; the structural variants too; and all 65,536 bit patterns of each type, shuffled.

use baselines::{Air, Base, DrTopK, GridSelect, SortChoose, TorchRadix, WarpSelect};
use test_support::{Float16, check_exact_and_work, row_properties};
use topk_ref::oracle::canonical_sorted_indices;
use topk_ref::{Element, Mode, Options, bf16, f16, topk_row};

/// Widest row of the property tests.
const WIDTH: usize = 1500;

row_properties!(128, check_exact_and_work, WIDTH; [f16: f16, bf16: bf16];
    air: Air::default(),
    air_always_buffering: Air::always_buffer(),
    air_alpha_1: Air::new(1).unwrap(),
    gridselect: GridSelect::default(),
    gridselect_3: GridSelect::with_blocks(3).unwrap(),
    warpselect: WarpSelect,
    drtopk: DrTopK::default(),
    drtopk_bitonic: DrTopK::new(2, Base::Bitonic).unwrap(),
    drtopk_beta_1: DrTopK::new(1, Base::Radix).unwrap(),
    torch_radix: TorchRadix,
    sort: SortChoose,
);

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
