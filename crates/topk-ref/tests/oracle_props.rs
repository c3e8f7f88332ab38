//! Every algorithm against the sort-based oracle, on rows built to break them: NaN of both
//! signs and odd payloads, ±inf, ±0.0, subnormals, ±FLT_MAX, heavy ties, widths that are
//! not multiples of 32, k ∈ {0, 1, M−1, M} and random, both modes, sorted and unsorted.

use proptest::prelude::*;
use test_support::{check_exact, pick_k, row, row_property};
use topk_ref::oracle::canonical_indices;
use topk_ref::{
    Bisect, Bitonic, Bucket, Heap, Mode, Options, Quickselect, Radix, RowTopK, topk_row,
};

fn mode(smallest: bool) -> Mode {
    Mode::from_smallest(smallest)
}

fn cases() -> ProptestConfig {
    ProptestConfig { cases: 384, ..ProptestConfig::default() }
}

row_property!(384, check_exact(&Heap), 2100; heap_matches_oracle: f32);
row_property!(384, check_exact(&Quickselect), 2100; quickselect_matches_oracle: f32);
row_property!(384, check_exact(&Radix), 2100; radix_matches_oracle: f32);
row_property!(384, check_exact(&Bucket), 2100; bucket_matches_oracle: f32);
row_property!(384, check_exact(&Bitonic), 2100; bitonic_matches_oracle: f32);
row_property!(384, check_exact(&Bisect::exact()), 2100; bisect_matches_oracle: f32);

/// Approximate modes: k distinct valid indices in ascending order, the input's bits as values.
fn check_valid(
    algo: &dyn RowTopK,
    row: &[f32],
    k: usize,
    mode: Mode,
) -> Result<u32, TestCaseError> {
    let opts = Options { mode, sorted: false };
    let got = topk_row(algo, row, k, opts).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(got.indices.len(), k);
    prop_assert!(got.indices.windows(2).all(|w| w[0] < w[1]), "ascending and distinct");
    prop_assert!(got.indices.iter().all(|&i| (i as usize) < row.len()));
    for (v, &i) in got.values.iter().zip(&got.indices) {
        prop_assert_eq!(v.to_bits(), row[i as usize].to_bits());
    }
    Ok(got.stats.iterations.unwrap_or(0))
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn bisect_exact_never_exceeds_64_iterations(row in row(2100), which in 0u8..6,
                                                 frac in 0.0f64..1.0, smallest: bool) {
        let k = pick_k(row.len(), which, frac);
        let it = check_valid(&Bisect::exact(), &row, k, mode(smallest))?;
        prop_assert!(it <= topk_ref::bisect::MAX_ITERATIONS, "{} iterations", it);
    }

    #[test]
    fn early_stopping_returns_valid_selections(row in row(2100), which in 0u8..6,
                                                frac in 0.0f64..1.0, smallest: bool,
                                                max_iter in 0u32..12) {
        let k = pick_k(row.len(), which, frac);
        let it = check_valid(&Bisect::early_stopping(max_iter), &row, k, mode(smallest))?;
        prop_assert!(k == 0 || it == max_iter);
    }

    #[test]
    fn precision_mode_returns_valid_selections(row in row(2100), which in 0u8..6,
                                                frac in 0.0f64..1.0, smallest: bool,
                                                eps in 0.0f32..0.5) {
        let k = pick_k(row.len(), which, frac);
        let b = Bisect::with_precision(eps).unwrap();
        let it = check_valid(&b, &row, k, mode(smallest))?;
        prop_assert!(it <= topk_ref::bisect::MAX_ITERATIONS);
    }

    /// Enough early-stopping steps on rows without ties at the k-th value reach the exact set:
    /// Algorithm 2 converges to Algorithm 1's answer when the cut is unambiguous.
    #[test]
    fn early_stopping_converges_on_distinct_rows(len in 2usize..300, seed in any::<u64>(),
                                                  which in 0u8..6, frac in 0.0f64..1.0) {
        let row: Vec<f32> = (0..len as u64)
            .map(|i| ((i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ seed) >> 40) as f32)
            .collect();
        let k = pick_k(len, which, frac);
        let want = canonical_indices(&row, k, Mode::Largest);
        let mut sorted = row.clone();
        sorted.sort_by(|a, b| b.total_cmp(a));
        prop_assume!(k == 0 || k == len || sorted[k - 1] != sorted[k]);
        let got = topk_row(&Bisect::early_stopping(200), &row, k, Options::default()).unwrap();
        prop_assert_eq!(got.indices, want);
    }
}
