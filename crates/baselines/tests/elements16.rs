//! Every baseline on rows of the 16-bit types (`f16`, `bf16`) against the oracle: every NaN
//! payload of either sign, ±inf, ±0, subnormals, the largest finite values, heavy ties, widths
//! that are not multiples of 32, k ∈ {0, 1, M−1, M} and random, both modes, sorted and
//! unsorted; the structural variants too; and all 65,536 bit patterns of each type, shuffled.

use baselines::{Air, Base, DrTopK, GridSelect, SortChoose, TorchRadix, WarpSelect};
use proptest::prelude::*;
use test_support::{Float16, pick_k, row_bf16, row_f16};
use topk_ref::oracle::{canonical_indices, canonical_sorted_indices};
use topk_ref::{Element, Mode, Options, RowTopKOf, bf16, f16, topk_row};

/// Same indices as the oracle in the requested order, the input's bits as values, and work
/// counters that at least read the row once and write the k results.
fn check_exact<E: Element>(
    algo: &dyn RowTopKOf<E>,
    row: &[E],
    k: usize,
    opts: Options,
) -> Result<(), TestCaseError> {
    let got = topk_row(algo, row, k, opts).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let want = if opts.sorted {
        canonical_sorted_indices(row, k, opts.mode)
    } else {
        canonical_indices(row, k, opts.mode)
    };
    prop_assert_eq!(&got.indices, &want, "{} {} k={} {:?}", algo.name(), E::NAME, k, opts);
    for (v, &i) in got.values.iter().zip(&got.indices) {
        prop_assert_eq!(v.to_bits(), row[i as usize].to_bits());
    }
    if k > 0 {
        let w = got.stats.work;
        prop_assert!(w.passes >= 1 && w.elements_read >= row.len() as u64, "{:?}", w);
        prop_assert!(w.elements_written >= k as u64, "{:?}", w);
    }
    Ok(())
}

fn cases() -> ProptestConfig {
    ProptestConfig { cases: 128, ..ProptestConfig::default() }
}

/// Widest row of the property tests.
const WIDTH: usize = 1500;

macro_rules! exact_property_16 {
    ($f16_name:ident, $bf16_name:ident, $algo:expr) => {
        proptest! {
            #![proptest_config(cases())]
            #[test]
            fn $f16_name(row in row_f16(WIDTH), which in 0u8..6, frac in 0.0f64..1.0,
                         smallest: bool, sorted: bool) {
                let k = pick_k(row.len(), which, frac);
                let opts = Options { mode: Mode::from_smallest(smallest), sorted };
                check_exact::<f16>(&$algo, &row, k, opts)?;
            }

            #[test]
            fn $bf16_name(row in row_bf16(WIDTH), which in 0u8..6, frac in 0.0f64..1.0,
                          smallest: bool, sorted: bool) {
                let k = pick_k(row.len(), which, frac);
                let opts = Options { mode: Mode::from_smallest(smallest), sorted };
                check_exact::<bf16>(&$algo, &row, k, opts)?;
            }
        }
    };
}

exact_property_16!(air_f16, air_bf16, Air::default());
exact_property_16!(air_always_buffering_f16, air_always_buffering_bf16, Air::always_buffer());
exact_property_16!(air_alpha_1_f16, air_alpha_1_bf16, Air::new(1).unwrap());
exact_property_16!(gridselect_f16, gridselect_bf16, GridSelect::default());
exact_property_16!(gridselect_3_f16, gridselect_3_bf16, GridSelect::with_blocks(3).unwrap());
exact_property_16!(warpselect_f16, warpselect_bf16, WarpSelect);
exact_property_16!(drtopk_f16, drtopk_bf16, DrTopK::default());
exact_property_16!(drtopk_bitonic_f16, drtopk_bitonic_bf16, DrTopK::new(2, Base::Bitonic).unwrap());
exact_property_16!(drtopk_beta_1_f16, drtopk_beta_1_bf16, DrTopK::new(1, Base::Radix).unwrap());
exact_property_16!(torch_radix_f16, torch_radix_bf16, TorchRadix);
exact_property_16!(sort_f16, sort_bf16, SortChoose);

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
