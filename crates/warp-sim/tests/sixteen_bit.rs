//! 16-bit rows (f16 and bf16, docs/kernel.md "16-bit rows"): every launch family of the
//! simulated kernel *is* topk-ref's bisect on the same 16-bit input — identical indices, value
//! bits (the input's own 16 bits) and iteration counts — on rows built to break it (every NaN
//! sign and payload kind, ±inf, ±0, subnormals, the largest values, heavy ties, widths that
//! are not multiples of 32, k ∈ {0, 1, M−1, M}), both modes, exact, with a precision, early
//! stopping and a recall target, sorted and not: packed quarter-, half- and whole-warp rows, rows that narrow,
//! block rows (narrowing, and past their registers), split rows; the row of all 65,536 f16
//! (and bf16) bit patterns shuffled; and no diagnostic on any.

use crate::common;

use common::{bisect, check_against_bisect as check, strategies};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use test_support::{Float16, matrix16, matrix16_in, pick_k};
use topk_ref::{Bisect, Element, KeyBits, Mode, Options, bf16, f16, topk_row};
use warp_sim::rtopk::Strategy as Launch;
use warp_sim::{DeviceLimits, ElemType, Family, KernelArgs, SimConfig, SimTopK, Simulator};

/// The elements' bits.
fn bits<E: Element>(v: &[E]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits().to_u32()).collect()
}

/// The quarter-, half-, whole-warp and block families on one matrix, as `pick` chooses.
fn any_family<T: Float16 + Element>(
    (n, m, x): (usize, usize, Vec<T>),
    (which, frac): (u8, f64),
    (smallest, sorted, b, pick): (bool, bool, Bisect, usize),
) -> Result<(), TestCaseError> {
    let k = pick_k(m, which, frac);
    let choices = strategies(m, ElemType::F16);
    let strategy = choices[pick % choices.len()];
    let config = SimConfig { strategy, sorted, ..SimConfig::default() };
    check(config, (n, m, &x), k, Mode::from_smallest(smallest), b).map(|_| ())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// f16: every strategy that holds the row — the plan's, quarter, half, whole-warp and block
    /// rows.
    #[test]
    fn every_family_equals_bisect_on_f16(x in matrix16::<f16>(700), which in 0u8..6,
                                         frac in 0.0f64..1.0, smallest: bool, sorted: bool,
                                         b in bisect(), pick in 0usize..5) {
        any_family(x, (which, frac), (smallest, sorted, b, pick))?;
    }

    /// The same for bf16.
    #[test]
    fn every_family_equals_bisect_on_bf16(x in matrix16::<bf16>(700), which in 0u8..6,
                                          frac in 0.0f64..1.0, smallest: bool, sorted: bool,
                                          b in bisect(), pick in 0usize..5) {
        any_family(x, (which, frac), (smallest, sorted, b, pick))?;
    }
}

/// Rows of 257 to 1024 with k < 128 (whole-warp rows that narrow, exact), of either type.
fn narrowing<T: Float16 + Element>(
    (n, m, x): (usize, usize, Vec<T>),
    k: usize,
    smallest: bool,
) -> Result<(), TestCaseError> {
    let args = KernelArgs { n, m, k, mode: Mode::Largest, bisect: Bisect::exact(), mutant: None };
    prop_assert!(Simulator::new(SimConfig::default()).plan(&args).unwrap().narrows);
    let config = SimConfig::default();
    check(config, (n, m, &x), k, Mode::from_smallest(smallest), Bisect::exact())?;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// Whole-warp rows that narrow to their candidates (M 257..1024, k < 128), f16.
    #[test]
    fn narrowing_rows_equal_bisect_on_f16(x in matrix16_in::<f16>(1..3, 257..=1024),
                                          k in 1usize..128, smallest: bool) {
        narrowing(x, k, smallest)?;
    }

    /// The same for bf16.
    #[test]
    fn narrowing_rows_equal_bisect_on_bf16(x in matrix16_in::<bf16>(1..3, 257..=1024),
                                           k in 1usize..128, smallest: bool) {
        narrowing(x, k, smallest)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, ..ProptestConfig::default() })]

    /// Wide rows, the plan's family: whole-warp rows of 48 to 96 per lane, block rows, block
    /// rows that narrow (M 3073..8192, k < 512); sorted or not.
    #[test]
    fn wide_rows_equal_bisect_on_f16(x in matrix16_in::<f16>(1..3, 1025..=8192),
                                     frac in 0.0f64..0.2, smallest: bool, sorted: bool) {
        let k = 1 + (frac * x.1 as f64) as usize;
        let config = SimConfig { sorted, ..SimConfig::default() };
        check(config, (x.0, x.1, &x.2), k, Mode::from_smallest(smallest), Bisect::exact())?;
    }

    /// The same for bf16, and early stopping.
    #[test]
    fn wide_rows_equal_bisect_on_bf16(x in matrix16_in::<bf16>(1..3, 1025..=8192),
                                      frac in 0.0f64..0.2, smallest: bool, steps in 0u32..9) {
        let k = 1 + (frac * x.1 as f64) as usize;
        let b = if steps == 0 { Bisect::exact() } else { Bisect::early_stopping(steps) };
        check(SimConfig::default(), (x.0, x.1, &x.2), k, Mode::from_smallest(smallest), b)?;
    }

    /// Split rows of 16-bit values (their candidates a 16-bit matrix), forced, k up to an
    /// eighth of a chunk.
    #[test]
    fn split_rows_equal_bisect_on_16_bit(f in matrix16_in::<f16>(1..3, 4096..=9000),
                                         b in matrix16_in::<bf16>(1..2, 4096..=9000),
                                         frac in 0.0f64..1.0, smallest: bool, sorted: bool) {
        let k = 1 + (frac * 255.0) as usize;
        let config = SimConfig { strategy: Launch::Split, sorted, ..SimConfig::default() };
        let mode = Mode::from_smallest(smallest);
        check(config, (f.0, f.1, &f.2), k, mode, Bisect::exact())?;
        check(config, (b.0, b.1, &b.2), k, mode, Bisect::exact())?;
    }
}

/// One shape of every width and family, on hostile data: the plan picks the 16-bit unit of
/// the f32 plan's family and width (its name with `_f16` / `_bf16`), and the answer is
/// bisect's.
#[test]
fn every_kernel_width_runs_its_16_bit_unit() {
    // (M, k, strategy, the f32 kernel the plan picks)
    let shapes: &[(usize, usize, Launch, &str)] = &[
        (8, 2, Launch::Quarter, "rtopk_quarter_rows_1"),
        (129, 20, Launch::Quarter, "rtopk_quarter_rows_20"),
        (33, 5, Launch::Half, "rtopk_half_rows_4"),
        (512, 100, Launch::Half, "rtopk_half_rows_32"),
        (31, 31, Launch::Warp, "rtopk_warp_rows_1"),
        (256, 9, Launch::Warp, "rtopk_warp_rows_8"), // 16-byte loads of eight
        (1000, 127, Launch::Auto, "rtopk_warp_rows_32"),
        (1500, 60, Launch::Auto, "rtopk_warp_rows_48"),
        (3001, 300, Launch::Auto, "rtopk_warp_rows_96"),
        (100, 7, Launch::Block, "rtopk_block_rows"),
        (2100, 400, Launch::Auto, "rtopk_block_rows"),
        (5001, 300, Launch::Auto, "rtopk_block_rows_narrow"),
    ];
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for (si, &(m, k, strategy, kernel)) in shapes.iter().enumerate() {
        let n = if m > 2000 { 1 } else { 3 };
        let f = matrix16_in::<f16>(n..n + 1, m..=m).new_tree(&mut runner).unwrap().current();
        let b = matrix16_in::<bf16>(n..n + 1, m..=m).new_tree(&mut runner).unwrap().current();
        let mode = if si % 2 == 0 { Mode::Largest } else { Mode::Smallest };
        let config = SimConfig { strategy, sorted: si % 3 == 0, ..SimConfig::default() };
        let args = KernelArgs { n, m, k, mode, bisect: Bisect::exact(), mutant: None };
        assert_eq!(Simulator::new(config).plan(&args).unwrap().unit.to_string(), kernel);
        let fail = |e: TestCaseError| panic!("{kernel} M={m} k={k} {mode:?}: {e}");
        check(config, (n, m, &f.2), k, mode, Bisect::exact()).unwrap_or_else(fail);
        check(config, (n, m, &b.2), k, mode, Bisect::exact()).unwrap_or_else(fail);
    }
}

/// A row of every bit pattern of a 16-bit type, shuffled: 65,536 elements, with every NaN
/// payload of both signs, ±inf, ±0 and every subnormal — a cluster row of 8 blocks, and on a
/// device without clusters a block row past its registers.
fn every_pattern<T: Float16 + Element>(row: Vec<T>) {
    let m = row.len();
    let no_clusters = DeviceLimits { max_cluster: 1, ..SimConfig::default().limits };
    for (limits, family) in
        [(SimConfig::default().limits, Family::ClusterRows), (no_clusters, Family::BlockRows)]
    {
        for (k, mode, b, sorted) in [
            (1, Mode::Largest, Bisect::exact(), false),
            (2100, Mode::Largest, Bisect::exact(), true), // every NaN, +inf, the largest values
            (40_000, Mode::Smallest, Bisect::exact(), false),
            (m - 1, Mode::Smallest, Bisect::early_stopping(9), false),
            (m, Mode::Largest, Bisect::exact(), false),
        ] {
            let config = SimConfig { sorted, limits, ..SimConfig::default() };
            let fam = check(config, (1, m, &row), k, mode, b)
                .unwrap_or_else(|e| panic!("{} k={k} {mode:?} {b:?}: {e}", T::NAME));
            assert_eq!(fam, family);
        }
    }
}

#[test]
fn a_row_of_every_f16_bit_pattern_shuffled_equals_bisect() {
    every_pattern(test_support::every_f16(22));
}

#[test]
fn a_row_of_every_bf16_bit_pattern_shuffled_equals_bisect() {
    every_pattern(test_support::every_bf16(23));
}

/// Where the search goes on in key space (±inf bounds), `bisect` halves the row's own 16-bit
/// keys — not the f32 keys of the same values — and so does the kernel: the counts of the f16
/// row are bisect's on it, and differ from those of the f32 row of the same values.
#[test]
fn the_key_phase_bisects_the_rows_own_16_bit_keys() {
    let values = [f32::NEG_INFINITY, 1.0, 1.000_976_6, 2.0, f32::INFINITY, 3.0];
    let row16: Vec<f16> = values.iter().map(|&v| f16::from_f32(v)).collect();
    let row32: Vec<f32> = row16.iter().map(|v| v.to_f32()).collect();
    let m = values.len();
    let mut differ = 0;
    for k in 1..=m {
        for mode in [Mode::Largest, Mode::Smallest] {
            let args = KernelArgs { n: 1, m, k, mode, bisect: Bisect::exact(), mutant: None };
            let got = Simulator::new(SimConfig::default()).run(&row16, &args).unwrap();
            let opts = Options { mode, sorted: false };
            let want16 = topk_row(f16::as_dyn(&Bisect::exact()), &row16, k, opts).unwrap();
            let want32 = topk_row(&Bisect::exact(), &row32, k, opts).unwrap();
            assert_eq!(got.indices, want16.indices, "k = {k} {mode:?}");
            assert_eq!(Some(got.iterations[0]), want16.stats.iterations, "k = {k} {mode:?}");
            differ += usize::from(want16.stats.iterations != want32.stats.iterations);
        }
    }
    assert!(differ >= 4, "the 16-bit key phase takes other steps than the f32 one");
}

/// The kernel through topk-ref's row-wise driver (`RowTopKOf<f16>` / `<bf16>`).
#[test]
fn sim_topk_takes_16_bit_rows_through_the_row_wise_driver() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for _ in 0..20 {
        let (_, m, row) = matrix16::<bf16>(300).new_tree(&mut runner).unwrap().current();
        let row = &row[..m];
        let sim = SimTopK::new(Bisect::exact());
        for (k, mode) in [(1.min(m), Mode::Largest), (m / 3, Mode::Smallest), (m, Mode::Largest)] {
            let opts = Options { mode, sorted: true };
            let got = topk_row(bf16::as_dyn(&sim), row, k, opts).unwrap();
            let want = topk_row(bf16::as_dyn(&Bisect::exact()), row, k, opts).unwrap();
            assert_eq!(
                (&got.indices, got.stats.iterations),
                (&want.indices, want.stats.iterations)
            );
            assert_eq!(bits(&got.values), bits(&want.values));
        }
        assert_eq!(sim.diagnostics_seen(), 0);
    }
}

/// The windows of a 16-bit launch shared out among threads give what one simulator gives.
#[test]
fn a_16_bit_launch_in_parallel_windows_equals_one_in_order() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for (n, m, k) in [(3000, 40, 5), (700, 300, 20)] {
        let x = matrix16_in::<f16>(n..n + 1, m..=m).new_tree(&mut runner).unwrap().current().2;
        let args =
            KernelArgs { n, m, k, mode: Mode::Smallest, bisect: Bisect::exact(), mutant: None };
        let config = SimConfig { sorted: true, ..SimConfig::default() };
        let one = Simulator::new(config).run(&x, &args).unwrap();
        let par = warp_sim::launch_parallel(&x, &args, config).unwrap();
        assert_eq!((&one.indices, &one.iterations), (&par.indices, &par.iterations));
        assert_eq!(bits(&one.values), bits(&par.values));
        assert_eq!((one.plan, one.diagnostics_total), (par.plan, 0));
    }
}

/// Rows in the narrowing ranges narrow on 16-bit values too — a whole-warp row's masks made
/// again at `lo_key`, a block row's from its own keys — and the trace shows the f16 unit, the
/// elements' own 16-bit keys, and bisect's answer.
#[test]
fn sixteen_bit_rows_in_the_narrowing_ranges_narrow() {
    use rand::SeedableRng;
    use rand_distr::{Distribution, StandardNormal};
    let mut rng = rand::rngs::StdRng::seed_from_u64(16);
    for (m, k, kernel) in [
        (800, 20, "rtopk_warp_rows_32_f16"),
        (1000, 100, "rtopk_warp_rows_32_f16"),
        (5001, 300, "rtopk_block_rows_narrow_f16"),
    ] {
        let x: Vec<f16> = (0..m).map(|_| f16::from_f32(StandardNormal.sample(&mut rng))).collect();
        let args =
            KernelArgs { n: 1, m, k, mode: Mode::Smallest, bisect: Bisect::exact(), mutant: None };
        let (got, trace) = Simulator::new(SimConfig::default()).run_traced(&x, &args, 0).unwrap();
        assert!(got.diagnostics.is_empty(), "{}", got.summary);
        assert_eq!((trace.kernel.as_str(), trace.elem), (kernel, "f16"));
        let (after, cand) = trace.narrowed.expect("the row narrows");
        assert!(after >= 1 && k < cand as usize, "{after} {cand}");
        let opts = Options { mode: Mode::Smallest, sorted: false };
        let want = topk_row(f16::as_dyn(&Bisect::exact()), &x, k, opts).unwrap();
        assert_eq!((&got.indices, Some(got.iterations[0])), (&want.indices, want.stats.iterations));
        for (i, key) in trace.keys.iter().enumerate() {
            assert_eq!(*key, x[i].key(Mode::Smallest).to_u32(), "the own key of {i}");
        }
        assert!(trace.to_text().contains(kernel));
    }
}

/// 16-bit rows whose counts nobody asks for, on every family that holds them and on split
/// rows: the oracle's answer bit for bit with no diagnostic (their value phase ends at adjacent
/// keys, `value_phase`'s `UNCOUNTED`: docs/kernel.md "16-bit rows").
fn without_counts<T: Float16 + Element>(
    (n, m, x): (usize, usize, Vec<T>),
    (which, frac): (u8, f64),
    (smallest, sorted, pick): (bool, bool, usize),
    elem: ElemType,
) -> Result<(), TestCaseError> {
    let k = pick_k(m, which, frac);
    let mut choices = strategies(m, elem);
    // a forced split needs a chunk of 2048 that holds 4 k and fits the row twice, and
    // something to select (k = 0 cannot be split)
    if m >= 4096 && k > 0 && 4 * k <= 2048 {
        choices.push(Launch::Split);
    }
    let strategy = choices[pick % choices.len()];
    let config = SimConfig { strategy, sorted, counts: false, ..SimConfig::default() };
    let mode = Mode::from_smallest(smallest);
    let args = KernelArgs { n, m, k, mode, bisect: Bisect::exact(), mutant: None };
    let got =
        Simulator::new(config).run(&x, &args).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let unit = got.plan.unit;
    prop_assert!(got.diagnostics.is_empty(), "{}: {}", unit, got.summary);
    prop_assert!(got.iterations.is_empty(), "{}: no counts were asked", unit);
    let opts = Options { mode, sorted };
    for r in 0..n {
        let row = &x[r * m..(r + 1) * m];
        let want = topk_row(T::as_dyn(&Bisect::exact()), row, k, opts).unwrap();
        let (lo, hi) = (r * k, (r + 1) * k);
        prop_assert_eq!(&got.indices[lo..hi], want.indices.as_slice(), "{} row {}", unit, r);
        prop_assert_eq!(bits(&got.values[lo..hi]), bits(&want.values), "{} row {}", unit, r);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// bf16 rows without counts, every strategy that holds them.
    #[test]
    fn bf16_rows_without_counts_equal_bisect(x in matrix16::<bf16>(700), which in 0u8..6,
                                                  frac in 0.0f64..1.0, smallest: bool,
                                                  sorted: bool, pick in 0usize..6) {
        without_counts(x, (which, frac), (smallest, sorted, pick), ElemType::Bf16)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Wide bf16 rows without counts: block rows, and split rows.
    #[test]
    fn wide_bf16_rows_without_counts_equal_bisect(
        x in matrix16_in::<bf16>(1..3, 1025..=9000), frac in 0.0f64..0.1, smallest: bool,
        pick in 0usize..4) {
        without_counts(x, (5, frac), (smallest, false, pick), ElemType::Bf16)?;
    }
}

/// A 16-bit row of N(0, 1) values rounded, with the values ranked k - 3 … k + 3 set to the
/// k-th's: a tie at the k-th value, where no test of the search can count exactly k.
fn tied_at_k<T: Float16 + Element>(m: usize, k: usize, seed: u64) -> Vec<T> {
    use rand::SeedableRng;
    use rand_distr::{Distribution, StandardNormal};
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut x: Vec<T> = (0..m).map(|_| T::from_f32_16(StandardNormal.sample(&mut rng))).collect();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(x[i].key(Mode::Largest).to_u32()));
    let tie = x[order[k - 1]];
    for &i in &order[k - 4..(k + 3).min(m)] {
        x[i] = tie;
    }
    x
}

/// 16-bit rows whose counts nobody asks for end their value phase once the bracket's own keys
/// are adjacent (the kernels' `UNCOUNTED`, docs/kernel.md "16-bit rows"): rows tied at their
/// k-th value reach that end in every family that holds them but block rows, which search by
/// histograms instead, with the oracle's answer bit for bit and no diagnostic; asked for their
/// counts, the same rows make every step (bisect's counts) and never reach it.
fn tied_rows_end_at_adjacent_keys<T: Float16 + Element>(elem: ElemType) {
    for (seed, &(m, k)) in
        [(200usize, 17usize), (256, 100), (700, 64), (1000, 40), (3000, 500)].iter().enumerate()
    {
        let x: Vec<T> = tied_at_k(m, k, seed as u64);
        for strategy in strategies(m, elem) {
            let cases = [(Mode::Largest, false), (Mode::Largest, true), (Mode::Smallest, false)];
            for (mode, counts) in cases {
                let config = SimConfig { strategy, counts, ..SimConfig::default() };
                let args = KernelArgs { n: 1, m, k, mode, bisect: Bisect::exact(), mutant: None };
                let got = Simulator::new(config).run(&x, &args).unwrap();
                let unit = got.plan.unit;
                assert!(got.diagnostics.is_empty(), "{unit}: {}", got.summary);
                let opts = Options { mode, sorted: false };
                let want = topk_row(T::as_dyn(&Bisect::exact()), &x, k, opts).unwrap();
                assert_eq!(got.indices, want.indices, "{unit} {mode:?} counts {counts}");
                assert_eq!(bits(&got.values), bits(&want.values), "{unit} {mode:?}");
                if counts {
                    assert_eq!(Some(got.iterations[0]), want.stats.iterations, "{unit}");
                }
                // the largest mode's tie is at the k-th value (the smallest mode's k-th value
                // is another, which may tie or not)
                // (a block row without counts searches by histograms: docs/kernel.md, "16-bit
                // rows by histograms")
                let histograms = got.coverage.reached(warp_sim::Branch::BlockHistograms);
                let block = unit.family() == warp_sim::Family::BlockRows;
                assert_eq!(histograms, block && !counts, "{unit} counts {counts}: histograms");
                if mode == Mode::Largest {
                    let adjacent = got.coverage.reached(warp_sim::Branch::AdjacentKeys);
                    let want = !counts && !histograms;
                    assert_eq!(adjacent, want, "{unit} counts {counts}: adjacent keys");
                }
            }
        }
    }
}

#[test]
fn f16_rows_without_counts_end_their_value_phase_at_adjacent_keys() {
    tied_rows_end_at_adjacent_keys::<f16>(ElemType::F16);
}

#[test]
fn bf16_rows_without_counts_end_their_value_phase_at_adjacent_keys() {
    tied_rows_end_at_adjacent_keys::<bf16>(ElemType::Bf16);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// f16 rows without counts (their value phase ending at adjacent keys), every strategy that
    /// holds them and split rows.
    #[test]
    fn f16_rows_without_counts_equal_bisect(x in matrix16::<f16>(700), which in 0u8..6,
                                            frac in 0.0f64..1.0, smallest: bool, sorted: bool,
                                            pick in 0usize..6) {
        without_counts(x, (which, frac), (smallest, sorted, pick), ElemType::F16)?;
    }
}
