//! The simulated kernel *is* topk-ref's bisect: identical indices, value bits and iteration
//! counts, exact and early stopping, on rows built to break it (NaN of both signs and odd
//! payloads, ±inf, ±0, subnormals, ±FLT_MAX, tie pools, widths that are not multiples of 32,
//! k ∈ {0, 1, M−1, M}), launched as matrices with several warps per block and a partial last
//! block — and no diagnostic on any of them.

use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use test_support::{matrix, pick_k};
use topk_ref::{Bisect, EpsilonMode, Mode, Options, topk_row};
use warp_sim::{KernelArgs, SimConfig, SimTopK, Simulator};

/// The bisect configurations: exact, relative and absolute precision, early stopping.
fn bisect() -> impl Strategy<Value = Bisect> {
    prop_oneof![
        3 => Just(Bisect::exact()),
        1 => (0.0f32..0.5).prop_map(|p| Bisect::with_precision(p).unwrap()),
        1 => (0.0f32..2.0).prop_map(|p| Bisect {
            precision: p,
            epsilon_mode: EpsilonMode::Absolute,
            max_iter: None,
        }),
        2 => (0u32..12).prop_map(Bisect::early_stopping),
        1 => (30u32..80).prop_map(Bisect::early_stopping),
    ]
}

/// Runs the matrix on the simulator and compares every row with topk-ref's `Bisect`.
fn check(
    sim: &mut Simulator,
    n: usize,
    m: usize,
    x: &[f32],
    k: usize,
    mode: Mode,
    b: Bisect,
) -> Result<(), TestCaseError> {
    let args = KernelArgs { n, m, k, mode, bisect: b, mutant: None };
    let got = sim.run(x, &args).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert!(got.diagnostics.is_empty(), "diagnostics: {:?}", got.diagnostics);
    for r in 0..n {
        let row = &x[r * m..(r + 1) * m];
        let want = topk_row(&b, row, k, Options { mode, sorted: false }).unwrap();
        prop_assert_eq!(&got.indices[r * k..(r + 1) * k], want.indices.as_slice(), "row {}", r);
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        prop_assert_eq!(bits(&got.values[r * k..(r + 1) * k]), bits(&want.values));
        prop_assert_eq!(got.iterations[r], want.stats.iterations.unwrap_or(0), "row {}", r);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 320, ..ProptestConfig::default() })]

    #[test]
    fn kernel_equals_bisect((n, m, x) in matrix(700), which in 0u8..6, frac in 0.0f64..1.0,
                            smallest: bool, b in bisect(), warps in 1u32..5) {
        let k = pick_k(m, which, frac);
        let mut sim = Simulator::new(SimConfig { warps_per_block: warps, ..SimConfig::default() });
        check(&mut sim, n, m, &x, k, Mode::from_smallest(smallest), b)?;
    }

    /// The same kernel through topk-ref's row-wise driver (`RowTopK`), sorted or not.
    #[test]
    fn row_topk_impl_equals_bisect((_, m, x) in matrix(700), which in 0u8..6, frac in 0.0f64..1.0,
                                   smallest: bool, sorted: bool, b in bisect()) {
        let row = &x[..m];
        let k = pick_k(m, which, frac);
        let opts = Options { mode: Mode::from_smallest(smallest), sorted };
        let sim = SimTopK::new(b);
        let got = topk_row(&sim, row, k, opts).unwrap();
        let want = topk_row(&b, row, k, opts).unwrap();
        prop_assert_eq!(got.indices, want.indices);
        prop_assert_eq!(got.stats.iterations.unwrap_or(0), want.stats.iterations.unwrap_or(0));
        prop_assert_eq!(sim.diagnostics_seen(), 0);
    }
}

/// Generates `n * m` values of one distribution.
fn generate(dist: &str, n: usize, m: usize, rng: &mut StdRng) -> Vec<f32> {
    (0..n * m)
        .map(|_| match dist {
            "normal" => StandardNormal.sample(rng),
            "uniform" => rng.random_range(-1.0f32..1.0),
            "ties" => f32::from(rng.random_range(0u8..6)) * 0.5,
            _ => match rng.random_range(0u32..20) {
                0 => f32::NAN,
                1 => -f32::NAN,
                2 => f32::INFINITY,
                3 => f32::NEG_INFINITY,
                4 => -0.0,
                5 => f32::from_bits(rng.random_range(1u32..0x80_0000)),
                _ => StandardNormal.sample(rng),
            },
        })
        .collect()
}

/// ≥ 10^5 rows: 4 distributions × widths below, at and above 32 × k from 1 to M, both modes,
/// exact and early stopping, 1 to 4 warps per block.
#[test]
fn hundred_thousand_random_rows_match_bisect() {
    let mut rng = StdRng::seed_from_u64(0x5EED);
    let widths = [1usize, 7, 31, 32, 33, 100, 256, 300];
    let mut rows = 0usize;
    let mut sims: Vec<Simulator> = (1..=4)
        .map(|w| Simulator::new(SimConfig { warps_per_block: w, ..SimConfig::default() }))
        .collect();
    for dist in ["normal", "uniform", "ties", "nan-inf"] {
        for (wi, &m) in widths.iter().enumerate() {
            // Short rows are cheap: give them more rows so every width gets similar work.
            let n = (200_000 / (m + 40)).clamp(64, 6000);
            for batch in 0..2 {
                let k = rng.random_range(1..=m);
                let mode = if (wi + batch) % 2 == 0 { Mode::Largest } else { Mode::Smallest };
                let b = if batch == 0 {
                    Bisect::exact()
                } else {
                    Bisect::early_stopping(rng.random_range(0..16))
                };
                let x = generate(dist, n, m, &mut rng);
                let sim = &mut sims[(wi + batch) % 4];
                check(sim, n, m, &x, k, mode, b)
                    .unwrap_or_else(|e| panic!("{dist} M={m} k={k} {mode:?} {b:?}: {e}"));
                rows += n;
            }
        }
    }
    assert!(rows >= 100_000, "{rows} rows");
}

/// N = 0 gives empty outputs; k = 0 gives empty rows; bad shapes are errors, not panics.
#[test]
fn degenerate_launches() {
    let mut sim = Simulator::new(SimConfig::default());
    let args = |n, m, k| KernelArgs {
        n,
        m,
        k,
        mode: Mode::Largest,
        bisect: Bisect::exact(),
        mutant: None,
    };
    let r = sim.run(&[], &args(0, 5, 2)).unwrap();
    assert!(r.indices.is_empty() && r.iterations.is_empty());
    let r = sim.run(&[1.0, 2.0], &args(1, 2, 0)).unwrap();
    assert_eq!((r.indices.len(), r.iterations), (0, vec![0]));
    assert!(sim.run(&[1.0, 2.0], &args(1, 2, 3)).is_err(), "k > M");
    assert!(sim.run(&[1.0, 2.0], &args(2, 2, 1)).is_err(), "data too short");
    assert!(sim.run(&[], &args(1, 0, 0)).is_err(), "M = 0");
    let bad = KernelArgs { bisect: Bisect { precision: -1.0, ..Bisect::exact() }, ..args(1, 2, 1) };
    assert!(sim.run(&[1.0, 2.0], &bad).is_err(), "negative precision");
    let mut wide = Simulator::new(SimConfig { warps_per_block: 33, ..SimConfig::default() });
    assert!(wide.run(&[1.0, 2.0], &args(1, 2, 1)).is_err(), "33 warps per block");
}

/// Rows of 257 to 1024 in exact mode with k < 128 (the CUDA kernel's whole-warp rows of 12 to
/// 32 keys per lane), and rows of 3073 to 8192 with k < 512 (its block rows of 4 to 8 warps),
/// narrow to at most 128 / 512 candidates, and the answer stays bisect's; other rows never
/// narrow.
#[test]
fn rows_in_the_narrowing_range_narrow_and_still_equal_bisect() {
    let mut rng = StdRng::seed_from_u64(7);
    let mut sim = Simulator::new(SimConfig { warps_per_block: 3, ..SimConfig::default() });
    let cases = [
        (700, 20, Bisect::exact(), Some(128)),
        (257, 100, Bisect::exact(), Some(128)),
        (1024, 64, Bisect::exact(), Some(128)),
        (256, 20, Bisect::exact(), None),
        (1025, 20, Bisect::exact(), None),
        (700, 128, Bisect::exact(), None),
        (700, 20, Bisect::early_stopping(6), None),
        (3073, 300, Bisect::exact(), Some(512)),
        (8192, 64, Bisect::exact(), Some(512)),
        (5001, 400, Bisect::exact(), Some(512)),
        (3072, 400, Bisect::exact(), None),
        (8193, 64, Bisect::exact(), None),
        (5001, 512, Bisect::exact(), None),
        (5001, 64, Bisect::early_stopping(4), None),
    ];
    for (m, k, b, cap) in cases {
        let narrows = cap.is_some();
        let n = 5;
        let x = generate("normal", n, m, &mut rng);
        let args = KernelArgs { n, m, k, mode: Mode::Largest, bisect: b, mutant: None };
        assert_eq!(args.cand_cap(), cap, "M = {m}, k = {k}");
        let (got, trace) = sim.run_traced(&x, &args, 2).unwrap();
        assert!(got.diagnostics.is_empty(), "{:?}", got.diagnostics);
        match trace.narrowed {
            Some((after, cand)) => {
                assert!(narrows, "M = {m}, k = {k} narrowed");
                let cap = cap.unwrap_or(0);
                assert!(after >= 1 && k < cand as usize && cand as usize <= cap, "{after} {cand}");
            }
            None => assert!(!narrows, "M = {m}, k = {k}: a normal row that did not narrow"),
        }
        for r in 0..n {
            let want = topk_row(&b, &x[r * m..(r + 1) * m], k, Options::default()).unwrap();
            assert_eq!(
                &got.indices[r * k..(r + 1) * k],
                want.indices.as_slice(),
                "M = {m} row {r}"
            );
            assert_eq!(got.iterations[r], want.stats.iterations.unwrap_or(0), "M = {m} row {r}");
        }
    }
}
