//! The statistics fast path ([`IterationCounter`], [`simulate`]) reports exactly the iteration
//! counts of topk-ref's `Bisect` run through its public driver, on every kind of row: every input
//! family, heavy ties, NaN, ±inf, signed zeros, subnormals, extremes, constant rows,
//! every k, every precision mode and early stopping.

use analysis::{IterationCounter, RowSource, SimSpec, simulate};
use ndarray::Array2;
use proptest::prelude::*;
use topk_ref::inputs::row_rng;
use topk_ref::{Bisect, EpsilonMode, Family, Options, topk_row, topk_rows};

/// The driver's count for one row (k = 0 reports none: 0).
fn reference(b: &Bisect, row: &[f32], k: usize) -> u32 {
    topk_row(b, row, k, Options::default()).unwrap().stats.iterations.unwrap_or(0)
}

fn configs() -> Vec<Bisect> {
    let mut v = vec![Bisect::exact()];
    for p in [1e-4f32, 0.01, 0.5] {
        for mode in [EpsilonMode::RelativeToMax, EpsilonMode::Absolute] {
            v.push(Bisect { precision: p, epsilon_mode: mode, ..Bisect::exact() });
        }
    }
    v.extend((0..10).map(Bisect::early_stopping));
    v
}

const SPECIALS: [f32; 12] = [
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    0.0,
    -0.0,
    1.0e-45,
    -1.0e-40,
    f32::MAX,
    -f32::MAX,
    1.0,
    1.0,
    -2.5,
];

#[test]
fn distribution_rows_give_reference_counts() {
    let mut counter = IterationCounter::new();
    let mut checked = 0;
    for (d, dist) in Family::ALL.into_iter().enumerate() {
        for (i, m) in [1usize, 2, 3, 17, 64, 255, 1000].into_iter().enumerate() {
            let mut row = vec![0.0f32; m];
            for r in 0..12u64 {
                dist.fill(&mut row_rng(11, (d * 10 + i) as u64, r), &mut row);
                for k in [0, 1, m / 3, m / 2, m.saturating_sub(1), m] {
                    for b in configs() {
                        assert_eq!(
                            counter.iterations(&row, k, &b),
                            reference(&b, &row, k),
                            "{dist} m={m} k={k} {b:?}"
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 30_000);
}

#[test]
fn hand_made_rows_with_ties_nan_and_extremes() {
    let rows: Vec<Vec<f32>> = vec![
        vec![f32::NAN; 7],
        vec![3.0; 9],
        vec![f32::NAN, 1.0, f32::NAN, 2.0, f32::INFINITY, -0.0, 0.0],
        vec![-f32::MAX, 0.0, 1.0e-45, 2.0e-45, f32::MAX],
        vec![0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 2.0, 0.5],
        (0..300).map(|i| if i % 3 == 0 { 0.0 } else { (i % 7) as f32 }).collect(),
        (0..100).map(|i| SPECIALS[i % SPECIALS.len()]).collect(),
    ];
    let mut counter = IterationCounter::new();
    for row in &rows {
        for k in 0..=row.len() {
            for b in configs() {
                assert_eq!(counter.iterations(row, k, &b), reference(&b, row, k), "{row:?} k={k}");
            }
        }
    }
}

#[test]
fn simulate_histograms_equal_the_driver_on_a_matrix() {
    // Rows with many ties (ReLU) and NaN sprinkled in, measured through both paths.
    let (n, m) = (300, 96);
    let mut data = vec![0.0f32; n * m];
    for (r, row) in data.chunks_mut(m).enumerate() {
        Family::Relu.fill(&mut row_rng(5, 0, r as u64), row);
        if r % 7 == 0 {
            row[r % m] = f32::NAN;
        }
    }
    let x = Array2::from_shape_vec((n, m), data.clone()).unwrap();
    let src = RowSource::Matrix { data: &data, m };
    for b in [Bisect::exact(), Bisect::with_precision(1e-3).unwrap(), Bisect::early_stopping(4)] {
        for k in [1, 10, 48, 70, 96] {
            let stats =
                simulate(&src, &SimSpec { m, ks: vec![k], reps: n, bisect: b }, None).unwrap();
            let it = topk_rows(&b, x.view(), k, Options::default()).unwrap().iterations.unwrap();
            let mut want = vec![0u64; 65];
            it.iter().for_each(|&c| want[c as usize] += 1);
            let mut got = stats[0].histogram(analysis::Convention::Tests);
            got.resize(65, 0);
            assert_eq!(got, want, "k={k} {b:?}");
        }
    }
}

fn special_row() -> impl Strategy<Value = Vec<f32>> {
    let value = prop_oneof![
        3 => (0..SPECIALS.len()).prop_map(|i| SPECIALS[i]),
        3 => (-4i32..4).prop_map(|i| i as f32 * 0.5),
        4 => any::<f32>(),
    ];
    prop::collection::vec(value, 1..80)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn arbitrary_rows_give_reference_counts(row in special_row(), kf in 0.0f64..=1.0) {
        let k = ((row.len() as f64) * kf).round() as usize;
        let mut counter = IterationCounter::new();
        for b in configs() {
            prop_assert_eq!(counter.iterations(&row, k, &b), reference(&b, &row, k));
        }
    }
}
