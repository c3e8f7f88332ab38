//! Every baseline against the sort-based oracle, with the row strategy of topk-ref's
//! `tests/oracle_props.rs`: NaN of both signs and odd payloads, ±inf, ±0.0, subnormals,
//! ±FLT_MAX, heavy ties, widths that are not multiples of 32, k ∈ {0, 1, M−1, M} and random,
//! both modes, sorted and unsorted. Configurations that change the structure (AIR without the
//! adaptive buffer, GridSelect with several blocks, Dr. Top-k with a bitonic base or maximum
//! delegates) are checked too.

use baselines::{Air, Base, DrTopK, GridSelect, SortChoose, TorchRadix, WarpSelect};
use proptest::prelude::*;
use test_support::{pick_k, row};
use topk_ref::oracle::{canonical_indices, canonical_sorted_indices};
use topk_ref::{Mode, Options, RowTopK, topk_row};

/// Same indices as the oracle in the requested order, the input's bits as values, and work
/// counters that at least read the row once and write the k results.
fn check_exact(
    algo: &dyn RowTopK,
    row: &[f32],
    k: usize,
    opts: Options,
) -> Result<(), TestCaseError> {
    let got = topk_row(algo, row, k, opts).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let want = if opts.sorted {
        canonical_sorted_indices(row, k, opts.mode)
    } else {
        canonical_indices(row, k, opts.mode)
    };
    prop_assert_eq!(&got.indices, &want, "{} k={} {:?}", algo.name(), k, opts);
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
    ProptestConfig { cases: 384, ..ProptestConfig::default() }
}

macro_rules! exact_property {
    ($name:ident, $algo:expr) => {
        proptest! {
            #![proptest_config(cases())]
            #[test]
            fn $name(row in row(2100), which in 0u8..6, frac in 0.0f64..1.0,
                     smallest: bool, sorted: bool) {
                let k = pick_k(row.len(), which, frac);
                check_exact(&$algo, &row, k, Options { mode: Mode::from_smallest(smallest), sorted })?;
            }
        }
    };
}

exact_property!(air_matches_oracle, Air::default());
exact_property!(air_always_buffering_matches_oracle, Air::always_buffer());
exact_property!(air_alpha_1_matches_oracle, Air::new(1).unwrap());
exact_property!(gridselect_matches_oracle, GridSelect::default());
exact_property!(gridselect_3_blocks_matches_oracle, GridSelect::with_blocks(3).unwrap());
exact_property!(warpselect_matches_oracle, WarpSelect);
exact_property!(drtopk_matches_oracle, DrTopK::default());
exact_property!(drtopk_bitonic_matches_oracle, DrTopK::new(2, Base::Bitonic).unwrap());
exact_property!(drtopk_max_delegate_matches_oracle, DrTopK::new(1, Base::Radix).unwrap());
exact_property!(torch_radix_matches_oracle, TorchRadix);
exact_property!(sort_matches_oracle, SortChoose);

proptest! {
    #![proptest_config(cases())]

    /// Dr. Top-k is exact for any subrange size, not only Rule 4's.
    #[test]
    fn drtopk_any_alpha_matches_oracle(row in row(2100), which in 0u8..6, frac in 0.0f64..1.0,
                                       smallest: bool, alpha in 0u32..12, beta in 1usize..5) {
        let k = pick_k(row.len(), which, frac);
        let dr = DrTopK::new(beta, Base::Radix).unwrap().with_alpha(alpha);
        check_exact(&dr, &row, k, Options { mode: Mode::from_smallest(smallest), sorted: false })?;
    }

    /// GridSelect is exact for any number of blocks.
    #[test]
    fn gridselect_any_blocks_matches_oracle(row in row(2100), which in 0u8..6, frac in 0.0f64..1.0,
                                            smallest: bool, blocks in 1usize..80) {
        let k = pick_k(row.len(), which, frac);
        let g = GridSelect::with_blocks(blocks).unwrap();
        check_exact(&g, &row, k, Options { mode: Mode::from_smallest(smallest), sorted: false })?;
    }
}
