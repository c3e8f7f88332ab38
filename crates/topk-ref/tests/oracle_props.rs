//! Every algorithm against the sort-based oracle, on rows built to break them: NaN of both
//! signs and odd payloads, ±inf, ±0.0, subnormals, ±FLT_MAX, heavy ties, widths that are
//! not multiples of 32, k ∈ {0, 1, M−1, M} and random, both modes, sorted and unsorted.

use proptest::prelude::*;
use topk_ref::oracle::{canonical_indices, canonical_sorted_indices};
use topk_ref::{
    Bisect, Bitonic, Bucket, Heap, Mode, Options, Quickselect, Radix, RowTopK, topk_row,
};

/// Values that sit on the edges of the order.
fn special() -> impl Strategy<Value = f32> {
    prop_oneof![
        Just(f32::NAN),
        Just(-f32::NAN),
        (1u32..0x40_0000).prop_map(|p| f32::from_bits(0x7f80_0000 | p)),
        (1u32..0x40_0000).prop_map(|p| f32::from_bits(0xff80_0000 | p)),
        Just(f32::INFINITY),
        Just(f32::NEG_INFINITY),
        Just(0.0f32),
        Just(-0.0f32),
        (1u32..0x80_0000, any::<bool>()).prop_map(|(b, neg)| subnormal(b, neg)),
        Just(f32::MAX),
        Just(-f32::MAX),
        Just(f32::MIN_POSITIVE),
        Just(-f32::MIN_POSITIVE),
    ]
}

fn subnormal(bits: u32, negative: bool) -> f32 {
    let v = f32::from_bits(bits);
    if negative { -v } else { v }
}

/// Ordinary numbers, plus neighbours in ulps so that adjacent floats are common.
fn ordinary() -> impl Strategy<Value = f32> {
    prop_oneof![
        4 => -1.0e3f32..1.0e3f32,
        1 => (0u32..8).prop_map(|d| f32::from_bits(1.0f32.to_bits() + d)),
        1 => any::<f32>().prop_filter("a number", |v| v.is_finite()),
    ]
}

/// A row of one of four flavours: ordinary; ordinary laced with specials; only a small pool
/// of values (heavy ties); pool, ordinary and specials mixed.
fn row() -> impl Strategy<Value = Vec<f32>> {
    let len = prop_oneof![3 => 1usize..40, 2 => 1usize..300, 1 => 1usize..2100];
    let pool = prop::collection::vec(prop_oneof![ordinary(), special()], 1..5);
    (len, pool, 0u8..4).prop_flat_map(|(len, pool, flavour)| {
        let from_pool = prop::sample::select(pool);
        let element = match flavour {
            0 => ordinary().boxed(),
            1 => prop_oneof![8 => ordinary(), 2 => special()].boxed(),
            2 => from_pool.boxed(),
            _ => prop_oneof![4 => from_pool, 4 => ordinary(), 2 => special()].boxed(),
        };
        prop::collection::vec(element, len)
    })
}

/// k: 0, 1, M−1, M or anything in between, chosen after M is known.
fn pick_k(m: usize, which: u8, frac: f64) -> usize {
    match which {
        0 => 0,
        1 => 1.min(m),
        2 => m.saturating_sub(1),
        3 => m,
        _ => ((m as f64) * frac) as usize,
    }
}

fn mode(smallest: bool) -> Mode {
    Mode::from_smallest(smallest)
}

/// The exact-algorithm check: same indices as the oracle in the requested order, and values
/// that are the input's bits at those indices.
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
            fn $name(row in row(), which in 0u8..6, frac in 0.0f64..1.0,
                     smallest: bool, sorted: bool) {
                let k = pick_k(row.len(), which, frac);
                check_exact(&$algo, &row, k, Options { mode: mode(smallest), sorted })?;
            }
        }
    };
}

exact_property!(heap_matches_oracle, Heap);
exact_property!(quickselect_matches_oracle, Quickselect);
exact_property!(radix_matches_oracle, Radix);
exact_property!(bucket_matches_oracle, Bucket);
exact_property!(bitonic_matches_oracle, Bitonic);
exact_property!(bisect_matches_oracle, Bisect::exact());

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
    fn bisect_exact_never_exceeds_64_iterations(row in row(), which in 0u8..6,
                                                 frac in 0.0f64..1.0, smallest: bool) {
        let k = pick_k(row.len(), which, frac);
        let it = check_valid(&Bisect::exact(), &row, k, mode(smallest))?;
        prop_assert!(it <= topk_ref::bisect::MAX_ITERATIONS, "{} iterations", it);
    }

    #[test]
    fn early_stopping_returns_valid_selections(row in row(), which in 0u8..6,
                                                frac in 0.0f64..1.0, smallest: bool,
                                                max_iter in 0u32..12) {
        let k = pick_k(row.len(), which, frac);
        let it = check_valid(&Bisect::early_stopping(max_iter), &row, k, mode(smallest))?;
        prop_assert!(k == 0 || it == max_iter);
    }

    #[test]
    fn precision_mode_returns_valid_selections(row in row(), which in 0u8..6,
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
