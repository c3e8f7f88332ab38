//! Every baseline against the sort-based oracle, with the row strategy of topk-ref's
//! `tests/oracle_props.rs`: NaN of both signs and odd payloads, ±inf, ±0.0, subnormals,
//! ±FLT_MAX, heavy ties, widths that are not multiples of 32, k ∈ {0, 1, M−1, M} and random,
//! both modes, sorted and unsorted. Configurations that change the structure (AIR without the
//! adaptive buffer, GridSelect with several blocks, Dr. Top-k with a bitonic base or maximum
//! delegates) are checked too.

use baselines::{Air, Base, DrTopK, GridSelect, SortChoose, TorchRadix, WarpSelect};
use proptest::prelude::*;
use test_support::{check_exact_and_work, pick_k, row, row_property};
use topk_ref::{Mode, Options};

fn cases() -> ProptestConfig {
    ProptestConfig { cases: 384, ..ProptestConfig::default() }
}

row_property!(384, check_exact_and_work(&Air::default()), 2100; air_matches_oracle: f32);
row_property!(384, check_exact_and_work(&Air::always_buffer()), 2100;
    air_always_buffering_matches_oracle: f32,
);
row_property!(384, check_exact_and_work(&Air::new(1).unwrap()), 2100;
    air_alpha_1_matches_oracle: f32,
);
row_property!(384, check_exact_and_work(&GridSelect::default()), 2100;
    gridselect_matches_oracle: f32,
);
row_property!(384, check_exact_and_work(&GridSelect::with_blocks(3).unwrap()), 2100;
    gridselect_3_blocks_matches_oracle: f32,
);
row_property!(384, check_exact_and_work(&WarpSelect), 2100; warpselect_matches_oracle: f32);
row_property!(384, check_exact_and_work(&DrTopK::default()), 2100; drtopk_matches_oracle: f32);
row_property!(384, check_exact_and_work(&DrTopK::new(2, Base::Bitonic).unwrap()), 2100;
    drtopk_bitonic_matches_oracle: f32,
);
row_property!(384, check_exact_and_work(&DrTopK::new(1, Base::Radix).unwrap()), 2100;
    drtopk_max_delegate_matches_oracle: f32,
);
row_property!(384, check_exact_and_work(&TorchRadix), 2100; torch_radix_matches_oracle: f32);
row_property!(384, check_exact_and_work(&SortChoose), 2100; sort_matches_oracle: f32);

proptest! {
    #![proptest_config(cases())]

    /// Dr. Top-k is exact for any subrange size, not only Rule 4's.
    #[test]
    fn drtopk_any_alpha_matches_oracle(row in row(2100), which in 0u8..6, frac in 0.0f64..1.0,
                                       smallest: bool, alpha in 0u32..12, beta in 1usize..5) {
        let k = pick_k(row.len(), which, frac);
        let dr = DrTopK::new(beta, Base::Radix).unwrap().with_alpha(alpha);
        let opts = Options { mode: Mode::from_smallest(smallest), sorted: false };
        check_exact_and_work::<f32>(&dr, &row, k, opts)?;
    }

    /// GridSelect is exact for any number of blocks.
    #[test]
    fn gridselect_any_blocks_matches_oracle(row in row(2100), which in 0u8..6, frac in 0.0f64..1.0,
                                            smallest: bool, blocks in 1usize..80) {
        let k = pick_k(row.len(), which, frac);
        let g = GridSelect::with_blocks(blocks).unwrap();
        let opts = Options { mode: Mode::from_smallest(smallest), sorted: false };
        check_exact_and_work::<f32>(&g, &row, k, opts)?;
    }
}
