//! Every launch family of the simulated kernel *is* topk-ref's bisect: identical indices,
//! value bits and iteration counts — quarter-, half- and whole-warp rows, rows that narrow,
//! block rows (narrowing, and past their registers), both sorts — forced or picked by the
//! plan, exact, with a precision, early stopping and a recall target, both modes, sorted and not, on rows built
//! to break it (NaN of both signs and odd payloads, ±inf, ±0, subnormals, ±FLT_MAX, tie pools,
//! widths that are not multiples of 32, k ∈ {0, 1, M−1, M}) — and no diagnostic on any.

use crate::common;

use common::{bisect, strategies};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use test_support::{matrix, pick_k};
use topk_ref::{Bisect, Mode, Options, TopKError, topk_row};
use warp_sim::rtopk::Strategy as Launch;
use warp_sim::{
    Branch, ElemType, Family, KernelArgs, SimConfig, SimError, SimTopK, Simulator, VirtualSource,
};

/// Runs the matrix on the simulator and compares every row with topk-ref's `Bisect`.
/// An H100 that launches no clusters: the block rows and splits a test is about, where the
/// default would give few long rows a cluster each (`cluster_rows_equal_bisect`).
fn no_clusters() -> warp_sim::DeviceLimits {
    warp_sim::DeviceLimits { max_cluster: 1, ..SimConfig::default().limits }
}

fn check(
    config: SimConfig,
    n: usize,
    m: usize,
    x: &[f32],
    k: usize,
    mode: Mode,
    b: Bisect,
) -> Result<Family, TestCaseError> {
    let args = KernelArgs { n, m, k, mode, bisect: b, mutant: None };
    let mut sim = Simulator::new(config);
    let got = sim.run(x, &args).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let family = got.plan.family();
    prop_assert!(got.diagnostics.is_empty(), "{}: {}", got.plan.unit, got.summary);
    let opts = Options { mode, sorted: config.sorted };
    for r in 0..n {
        let row = &x[r * m..(r + 1) * m];
        let want = topk_row(&b, row, k, opts).unwrap();
        let unit = got.plan.unit;
        prop_assert_eq!(
            &got.indices[r * k..(r + 1) * k],
            want.indices.as_slice(),
            "{} row {}",
            unit,
            r
        );
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        prop_assert_eq!(
            bits(&got.values[r * k..(r + 1) * k]),
            bits(&want.values),
            "{} row {}",
            unit,
            r
        );
        if got.route.depth() > 0 {
            // a split row has no iteration count (docs/contract.md §3 counts the row's search)
            prop_assert!(got.iterations.is_empty(), "{}: counts of a split row", unit);
            continue;
        }
        prop_assert_eq!(
            got.iterations[r],
            want.stats.iterations.unwrap_or(0),
            "{} row {}",
            unit,
            r
        );
    }
    Ok(family)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// Every strategy that holds the row: the plan's, quarter, half, whole-warp and block rows.
    #[test]
    fn every_family_equals_bisect((n, m, x) in matrix(700), which in 0u8..6, frac in 0.0f64..1.0,
                                  smallest: bool, sorted: bool, b in bisect(), pick in 0usize..5) {
        let k = pick_k(m, which, frac);
        let choices = strategies(m, ElemType::F32);
        let strategy = choices[pick % choices.len()];
        let config = SimConfig { strategy, sorted, ..SimConfig::default() };
        check(config, n, m, &x, k, Mode::from_smallest(smallest), b)?;
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

/// `n * m` values of one distribution.
fn generate(dist: &str, n: usize, m: usize, rng: &mut StdRng) -> Vec<f32> {
    (0..n * m)
        .map(|_| match dist {
            "normal" => StandardNormal.sample(rng),
            "ties" => f32::from(rng.random_range(0u8..6)) * 0.5,
            // ties that a top k of a few hundred meets in many chunks of a split row
            "wide-ties" => f32::from(rng.random_range(0u8..97)) - 48.0,
            // values a row narrows among (a NaN or an infinity at either end leaves no value
            // phase, which is where a row narrows): zeros of both signs and subnormals
            "finite" => match rng.random_range(0u32..20) {
                0 => -0.0,
                1 => 0.0,
                2 => f32::from_bits(rng.random_range(1u32..0x80_0000)),
                3 => -f32::from_bits(rng.random_range(1u32..0x80_0000)),
                _ => StandardNormal.sample(rng),
            },
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

/// The wide families and every width of the warp-row tables: one shape of each, three kinds
/// of data, both modes, exact and early stopping, sorted and not. The plan's own choice is
/// checked too.
#[test]
fn every_kernel_width_and_the_wide_families_equal_bisect() {
    let mut rng = StdRng::seed_from_u64(0x5EED);
    // (M, k, strategy, the kernel the plan must pick)
    let shapes: &[(usize, usize, Launch, &str)] = &[
        (8, 2, Launch::Quarter, "rtopk_quarter_rows_1"),
        (129, 20, Launch::Quarter, "rtopk_quarter_rows_20"),
        (256, 64, Launch::Quarter, "rtopk_quarter_rows_32"),
        (33, 5, Launch::Half, "rtopk_half_rows_4"),
        (190, 17, Launch::Half, "rtopk_half_rows_12"),
        (512, 100, Launch::Half, "rtopk_half_rows_32"),
        (31, 31, Launch::Warp, "rtopk_warp_rows_1"),
        (250, 9, Launch::Warp, "rtopk_warp_rows_8"),
        (640, 40, Launch::Auto, "rtopk_warp_rows_20"),
        (1000, 127, Launch::Auto, "rtopk_warp_rows_32"),
        (1024, 500, Launch::Auto, "rtopk_warp_rows_32"),
        (1500, 60, Launch::Auto, "rtopk_warp_rows_48"),
        (2047, 255, Launch::Auto, "rtopk_warp_rows_64"),
        (3001, 300, Launch::Auto, "rtopk_warp_rows_96"),
        (100, 7, Launch::Block, "rtopk_block_rows"),
        (2100, 400, Launch::Auto, "rtopk_block_rows"),
        (5001, 300, Launch::Auto, "rtopk_block_rows_narrow"),
        (8192, 511, Launch::Auto, "rtopk_block_rows_narrow"),
    ];
    for (si, &(m, k, strategy, kernel)) in shapes.iter().enumerate() {
        for (di, dist) in ["normal", "ties", "hostile"].into_iter().enumerate() {
            let n = if m > 2000 { 2 } else { 5 };
            let x = generate(dist, n, m, &mut rng);
            let mode = if (si + di) % 2 == 0 { Mode::Largest } else { Mode::Smallest };
            let b = if di == 1 { Bisect::early_stopping(7) } else { Bisect::exact() };
            let sorted = (si + di) % 3 == 0;
            let config = SimConfig { strategy, sorted, ..SimConfig::default() };
            let args = KernelArgs { n, m, k, mode, bisect: b, mutant: None };
            let plan = Simulator::new(config).plan(&args).unwrap();
            if di == 0 {
                assert_eq!(plan.unit.to_string(), kernel, "M = {m}, k = {k}, {strategy}");
            }
            check(config, n, m, &x, k, mode, b)
                .unwrap_or_else(|e| panic!("{kernel} {dist} M={m} k={k} {mode:?} {b:?}: {e}"));
        }
    }
}

/// Rows wider than a block's registers (32 keys × 1024 threads): the next keys in shared
/// memory, the rest re-keyed from the input; a sort in place in global memory (k > 4096).
#[test]
fn block_rows_past_their_registers_and_the_global_sort_equal_bisect() {
    let mut rng = StdRng::seed_from_u64(11);
    let x = generate("hostile", 1, 36_000, &mut rng);
    for (k, sorted) in [(300, false), (5000, true)] {
        let config = SimConfig { sorted, limits: no_clusters(), ..SimConfig::default() };
        let fam = check(config, 1, 36_000, &x, k, Mode::Largest, Bisect::exact()).unwrap();
        assert_eq!(fam, Family::BlockRows);
    }
    // a device with little shared memory re-keys everything past the registers
    let small = warp_sim::DeviceLimits {
        sm_count: 16,
        shared_optin_bytes: 8192,
        max_cluster: 8,
        cluster_slots: rtopk_plan::ClusterSlots::UNKNOWN,
    };
    let config = SimConfig { limits: small, ..SimConfig::default() };
    check(config, 1, 36_000, &x, 40, Mode::Smallest, Bisect::early_stopping(9)).unwrap();
}

/// Few rows past 16384 (crate::rtopk-plan's cluster rows): each row over a cluster of 3 to 5
/// blocks, its counts meeting in distributed shared memory — the answer and the iteration
/// count of `bisect`, exact (largest and smallest, sorted or not) and with early stopping, on
/// hostile values, ties and a row whose last block holds a single element.
#[test]
fn cluster_rows_equal_bisect() {
    let mut rng = StdRng::seed_from_u64(23);
    for (dist, n, m, k, mode, b, sorted) in [
        ("hostile", 1, 16_400, 200, Mode::Largest, Bisect::exact(), true),
        ("ties", 2, 20_000, 7, Mode::Smallest, Bisect::exact(), false),
        ("normal", 1, 2 * 8192 * 2 + 1, 9000, Mode::Largest, Bisect::exact(), false),
        ("hostile", 1, 24_577, 1, Mode::Largest, Bisect::early_stopping(5), false),
        // blocks of 13 warps, whose counts meet in the block first (cluster_sum); the others
        // have at most 8, each warp adding its own
        ("wide-ties", 1, 100_000, 2048, Mode::Smallest, Bisect::exact(), false),
        // past 131072: a wide cluster of 16 blocks (rtopk-plan's WIDE_CLUSTER), k small: the
        // narrowing kernel, whose rows with NaN at their ends never narrow
        ("hostile", 1, 140_001, 64, Mode::Largest, Bisect::exact(), true),
    ] {
        let x = generate(dist, n, m, &mut rng);
        let config = SimConfig { sorted, ..SimConfig::default() };
        let fam = check(config, n, m, &x, k, mode, b)
            .unwrap_or_else(|e| panic!("{dist} {n} x {m} k={k}: {e}"));
        let narrows = m >= 98_304 && k <= 128;
        let want = if narrows { Family::ClusterRowsNarrow } else { Family::ClusterRows };
        assert_eq!(fam, want, "{dist} {n} x {m} k={k}");
    }
    let args = KernelArgs {
        n: 1,
        m: 140_001,
        k: 64,
        mode: Mode::Largest,
        bisect: Bisect::exact(),
        mutant: None,
    };
    let route = Simulator::new(SimConfig::default()).route(&args).unwrap();
    assert_eq!(route.plans()[0].cluster, 16, "the 140001-wide row's cluster");
    // a split row whose second stage (19 chunks' 1024 candidates each) is a cluster row, on a
    // device of portable clusters (with wide ones the row is one cluster)
    let (m, k) = (300_000, 1024);
    let x = generate("hostile", 1, m, &mut rng);
    let portable = warp_sim::DeviceLimits { max_cluster: 8, ..SimConfig::default().limits };
    let config = SimConfig { counts: false, limits: portable, ..SimConfig::default() };
    let args =
        KernelArgs { n: 1, m, k, mode: Mode::Largest, bisect: Bisect::exact(), mutant: None };
    let route = Simulator::new(config).route(&args).unwrap();
    let last = *route.plans().last().unwrap();
    assert_eq!((route.depth(), last.family()), (1, Family::ClusterRows));
    check(config, 1, m, &x, k, Mode::Largest, Bisect::exact()).unwrap();
}

/// Cluster rows that narrow (`rtopk_cluster_rows_narrow`; docs/kernel.md, "Cluster rows",
/// **Narrowing**): an f32 row whose search finds at most 1024 keys (`CLUSTER_CAND_CAP`) at its
/// lower bound gathers them into block 0, whose first warp finishes the search and the
/// selection alone — `bisect`'s indices, value bits and iteration count all the same, with
/// zeros of both signs and subnormals in the row (a NaN or an infinity at its ends leaves no
/// value phase, so no narrowing), ties at the k-th value among the candidates, both modes,
/// sorted or not, a recall target, blocks of 12 to 14 warps, and wide clusters; the same rows
/// in bf16 take the plain kernel, which never narrows.
#[test]
fn cluster_rows_that_narrow_equal_bisect() {
    let mut rng = StdRng::seed_from_u64(29);
    let recall = Bisect::with_recall(0.999).unwrap();
    for (dist, n, m, k, mode, b, sorted) in [
        ("normal", 1, 100_000, 64, Mode::Largest, Bisect::exact(), false),
        ("finite", 2, 110_000, 40, Mode::Smallest, Bisect::exact(), true),
        ("wide-ties", 1, 98_304, 30, Mode::Largest, Bisect::exact(), false),
        ("normal", 1, 140_001, 50, Mode::Largest, recall, false),
        ("finite", 1, 98_304, 128, Mode::Largest, Bisect::exact(), true),
    ] {
        let x = generate(dist, n, m, &mut rng);
        let config = SimConfig { sorted, ..SimConfig::default() };
        let case = format!("{dist} {n} x {m} k={k} {b:?}");
        let args = KernelArgs { n, m, k, mode, bisect: b, mutant: None };
        let got = Simulator::new(config).run(&x, &args).unwrap();
        assert!(got.coverage.reached(Branch::ClusterNarrowed), "{case}: {:?}", got.coverage);
        let fam = check(config, n, m, &x, k, mode, b).unwrap_or_else(|e| panic!("{case}: {e}"));
        assert_eq!(fam, Family::ClusterRowsNarrow, "{case}");
        let xb: Vec<_> = x.iter().map(|&v| topk_ref::bf16::from_f32(v)).collect();
        let got = Simulator::new(config).run(&xb, &args).unwrap();
        assert_eq!(got.plan.family(), Family::ClusterRows, "{case} bf16");
        assert!(!got.coverage.reached(Branch::ClusterNarrowed), "{case} bf16");
    }
}

/// Cluster rows of the plain kernel that narrow within their blocks (docs/kernel.md, "Cluster
/// rows", **Rounds**): an f32 row whose search finds at most 4096 keys (`CLUSTER_LOCAL_CAP`) at
/// its lower bound keeps them in each block's staging and counts the thresholds of four steps
/// in one cluster round (`value_rounds`) — `bisect`'s indices, value bits and iteration count
/// all the same: normal rows, zeros of both signs and subnormals, wide ties at the k-th value,
/// k from 1 to 3000, both modes, sorted or not, clusters of 4 to 16 blocks of
/// 256 to 1024 threads; a recall target and a precision narrow too but search one step a
/// round (`finish_exact` over the candidates); bf16 rows never narrow; and where the launch has
/// no load staging to keep the candidates in, the search goes on over the registers.
#[test]
fn cluster_rows_that_narrow_within_their_blocks_equal_bisect() {
    let mut rng = StdRng::seed_from_u64(31);
    let recall = Bisect::with_recall(0.99).unwrap();
    let precise = Bisect::with_precision(1e-3).unwrap();
    for (dist, n, m, k, mode, b, sorted, rounds) in [
        ("normal", 1, 40_000, 2048, Mode::Largest, Bisect::exact(), false, true),
        ("finite", 2, 49_152, 300, Mode::Smallest, Bisect::exact(), true, true),
        ("wide-ties", 1, 65_536, 1000, Mode::Largest, Bisect::exact(), false, true),
        ("normal", 1, 262_144, 3000, Mode::Largest, Bisect::exact(), false, true),
        ("normal", 1, 90_000, 1, Mode::Smallest, Bisect::exact(), true, true),
        ("normal", 1, 90_000, 300, Mode::Largest, Bisect::exact(), false, true),
        ("normal", 1, 500_000, 2048, Mode::Largest, Bisect::exact(), false, true),
        ("wide-ties", 1, 163_840, 2048, Mode::Largest, Bisect::exact(), false, true),
        ("finite", 2, 262_144, 5000, Mode::Smallest, Bisect::exact(), true, true),
        ("normal", 1, 131_072, 512, Mode::Largest, recall, false, false),
        ("normal", 1, 262_144, 700, Mode::Largest, precise, false, false),
        ("finite", 1, 49_152, 700, Mode::Largest, precise, false, false),
    ] {
        let x = generate(dist, n, m, &mut rng);
        let config = SimConfig { sorted, ..SimConfig::default() };
        let case = format!("{dist} {n} x {m} k={k} {b:?}");
        let args = KernelArgs { n, m, k, mode, bisect: b, mutant: None };
        let got = Simulator::new(config).run(&x, &args).unwrap();
        assert_eq!(
            got.coverage.reached(Branch::ClusterRounds),
            rounds,
            "{case}: {:?}",
            got.coverage
        );
        assert!(!got.coverage.reached(Branch::ClusterNarrowed), "{case}");
        // a wide cluster (rows past CLUSTER_MAX_ROW, and from WIDE_PLAIN_MIN_ROW unsorted rows:
        // none of these narrows in a launch of its own) counts its rounds by warp ballots
        let wide = got.plan.cluster == rtopk_plan::WIDE_CLUSTER as u32;
        let plainly = m >= rtopk_plan::WIDE_PLAIN_MIN_ROW && !sorted;
        assert_eq!(wide, m > rtopk_plan::CLUSTER_MAX_ROW || plainly, "{case}");
        assert_eq!(got.coverage.reached(Branch::ClusterBallotRounds), rounds && wide, "{case}");
        let fam = check(config, n, m, &x, k, mode, b).unwrap_or_else(|e| panic!("{case}: {e}"));
        assert_eq!(fam, Family::ClusterRows, "{case}");
        let xb: Vec<_> = x.iter().map(|&v| topk_ref::bf16::from_f32(v)).collect();
        let got = Simulator::new(config).run(&xb, &args).unwrap();
        assert!(!got.coverage.reached(Branch::ClusterRounds), "{case} bf16");
    }
    // a device whose blocks may not opt in to the load staging: the row narrows (EXIT_NARROW)
    // but has nowhere to keep its candidates, so its search goes on over the registers
    let small =
        warp_sim::DeviceLimits { shared_optin_bytes: 16 << 10, ..SimConfig::default().limits };
    let config = SimConfig { limits: small, ..SimConfig::default() };
    let (m, k) = (40_000, 2048);
    let x = generate("normal", 1, m, &mut rng);
    let args =
        KernelArgs { n: 1, m, k, mode: Mode::Largest, bisect: Bisect::exact(), mutant: None };
    let got = Simulator::new(config).run(&x, &args).unwrap();
    assert_eq!((got.plan.family(), got.plan.dynamic_shared), (Family::ClusterRows, 0));
    assert!(!got.coverage.reached(Branch::ClusterRounds), "{:?}", got.coverage);
    check(config, 1, m, &x, k, Mode::Largest, Bisect::exact()).unwrap();
}

/// Cluster rows whose counts nobody asked for start from a guessed bracket (docs/kernel.md,
/// "Cluster rows", **A guessed bracket**: a sample's leaves, then two counts in one round)
/// where k is at least m / 80 — `bisect`'s indices and value bits all the same on rows where
/// the guess narrows at once, where it misses (rows whose parts lie on different scales,
/// ascending rows, wide ties at the k-th value, NaN and infinities), both modes, sorted or not,
/// on portable and wide clusters (the kernel's `GUESSES` instantiation); rows below the rule
/// and rows whose counts are asked search as before.
#[test]
fn cluster_rows_from_a_guessed_bracket_equal_bisect() {
    let mut rng = StdRng::seed_from_u64(37);
    let scaled = |m: usize, rng: &mut StdRng| -> Vec<f32> {
        let x = generate("normal", 1, m, rng);
        x.iter().enumerate().map(|(i, v)| v * 10f32.powi((4 * i / m) as i32)).collect()
    };
    let ascending = |m: usize| -> Vec<f32> { (0..m).map(|i| i as f32 / m as f32 - 0.5).collect() };
    // forty values, or a tenth of a normal row on one value near its top: the k-th value's
    // ties straddle the guessed bracket's ends
    let forty = |n: usize, m: usize, rng: &mut StdRng| -> Vec<f32> {
        (0..n * m).map(|_| f32::from(rng.random_range(0u8..40))).collect()
    };
    let spike = |m: usize, rng: &mut StdRng| -> Vec<f32> {
        let x = generate("normal", 1, m, rng);
        x.into_iter().map(|v| if rng.random_range(0u8..10) == 0 { 1.75 } else { v }).collect()
    };
    for (dist, n, m, k, mode, sorted, guess) in [
        ("normal", 1, 100_000, 2048, Mode::Largest, false, true),
        ("normal", 1, 40_000, 2048, Mode::Smallest, true, true),
        ("wide-ties", 1, 65_536, 1000, Mode::Largest, false, true),
        ("ties", 2, 49_152, 4000, Mode::Largest, false, true),
        ("forty", 3, 49_152, 4000, Mode::Largest, false, true),
        ("spike", 1, 40_000, 2048, Mode::Largest, true, true),
        ("spike", 1, 100_000, 4000, Mode::Largest, false, true),
        ("finite", 1, 65_536, 1024, Mode::Smallest, false, true),
        ("scaled", 1, 98_304, 2048, Mode::Largest, false, true),
        ("ascending", 1, 81_920, 1500, Mode::Largest, true, true),
        ("normal", 1, 262_144, 4000, Mode::Largest, false, true),
        ("scaled", 1, 163_840, 2048, Mode::Largest, false, true),
        ("forty", 2, 100_000, 2048, Mode::Smallest, false, true),
        ("normal", 1, 262_144, 3000, Mode::Largest, false, false),
        ("normal", 1, 131_072, 1024, Mode::Largest, false, false),
    ] {
        let x = match dist {
            "scaled" => scaled(m, &mut rng),
            "ascending" => ascending(m),
            "forty" => forty(n, m, &mut rng),
            "spike" => spike(m, &mut rng),
            _ => generate(dist, n, m, &mut rng),
        };
        let case = format!("{dist} {n} x {m} k={k} {mode:?}");
        let args = KernelArgs { n, m, k, mode, bisect: Bisect::exact(), mutant: None };
        let config = SimConfig { sorted, counts: false, ..SimConfig::default() };
        let got = Simulator::new(config).run(&x, &args).unwrap();
        assert_eq!(got.plan.family(), Family::ClusterRows, "{case}");
        assert!(got.diagnostics.is_empty(), "{case}: {}", got.summary);
        assert_eq!(got.coverage.reached(Branch::ClusterGuess), guess, "{case}: {:?}", got.coverage);
        let opts = Options { mode, sorted };
        for r in 0..n {
            let want = topk_row(&Bisect::exact(), &x[r * m..(r + 1) * m], k, opts).unwrap();
            assert_eq!(&got.indices[r * k..(r + 1) * k], want.indices.as_slice(), "{case} row {r}");
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got.values[r * k..(r + 1) * k]), bits(&want.values), "{case} row {r}");
        }
        // with counts asked the row bisects from its range, as bisect counts
        let counted = SimConfig { sorted, ..SimConfig::default() };
        let got = Simulator::new(counted).run(&x, &args).unwrap();
        assert!(!got.coverage.reached(Branch::ClusterGuess), "{case} counted");
    }
}

/// Each row of a simulator's launch against `bisect`'s: its indices, its values' bits and,
/// where counts were asked of a launch that did not split its rows, its iteration count.
fn rows_are_bisects<E: topk_ref::Element>(
    got: &warp_sim::LaunchResult<E>,
    x: &[E],
    (m, k, opts, counts): (usize, usize, Options, bool),
    bits: impl Fn(&[E]) -> Vec<u32>,
    case: &str,
) {
    for r in 0..x.len() / m {
        let row = &x[r * m..(r + 1) * m];
        let want = topk_row(E::as_dyn(&Bisect::exact()), row, k, opts).unwrap();
        let (lo, hi) = (r * k, (r + 1) * k);
        assert_eq!(&got.indices[lo..hi], want.indices.as_slice(), "{case} row {r}");
        assert_eq!(bits(&got.values[lo..hi]), bits(&want.values), "{case} row {r}");
        if counts && got.route.depth() == 0 {
            let it = want.stats.iterations.unwrap_or(0);
            assert_eq!(got.iterations[r], it, "{case} row {r}");
        }
    }
}

/// The simulator's launch of `x`'s rows at a recall target of 0.9, largest, no counts asked,
/// on `config` otherwise: a recall target bisects whatever the row (docs/contract.md §6).
fn at_recall<E: topk_ref::Element>(
    x: &[E],
    (n, m, k): (usize, usize, usize),
    config: SimConfig,
) -> warp_sim::LaunchResult<E> {
    let recall = Bisect::with_recall(0.9).unwrap();
    let args = KernelArgs { n, m, k, mode: Mode::Largest, bisect: recall, mutant: None };
    Simulator::new(SimConfig { counts: false, ..config }).run(x, &args).unwrap()
}

/// 16-bit block and cluster rows whose counts nobody asked for search by two histograms of
/// their keys' bytes (docs/kernel.md, "16-bit rows by histograms") — `bisect`'s indices and
/// value bits all the same, in f16 and bf16: normal rows, heavy and wide ties at the k-th
/// value, NaN of both signs with payloads, infinities, zeros of both signs and subnormals,
/// k from 1 to M, widths that are not multiples of 32, block rows, split rows (their chunks and
/// second stages), portable and wide clusters, both modes, sorted or not; with counts asked, or
/// a recall target, the row bisects as before (asked of the launches of at most 2^18 values,
/// block rows among them: the larger ones' bisection is the other tests' and only costs time).
#[test]
fn sixteen_bit_rows_search_by_histograms() {
    use test_support::{Float16, specials16};
    use topk_ref::{Element, bf16, f16};
    fn run<E: Element + Float16>(case: &str, x32: &[f32], (n, m, k): (usize, usize, usize)) {
        let mut x: Vec<E> = x32.iter().map(|&v| E::from_f32_16(v)).collect();
        if case.starts_with("hostile") {
            // NaN payloads of both signs, infinities, zeros and subnormals among the values
            let f = E::FORMAT;
            let specials = [
                specials16::<E>()[0],
                specials16::<E>()[1],
                E::from_bits16(0x8000),
                E::from_bits16(1),
                E::from_bits16(0x8000 | 3),
                E::from_bits16(f.inf),
            ];
            for (i, v) in x.iter_mut().enumerate().filter(|(i, _)| i % 41 == 0) {
                *v = specials[i / 41 % specials.len()];
            }
        }
        // counts and a recall target on the launches of at most 2^18 values (block rows among them)
        let bisects_too = n * m <= 1 << 18;
        for (mode, sorted) in [(Mode::Largest, false), (Mode::Smallest, true)] {
            let args = KernelArgs { n, m, k, mode, bisect: Bisect::exact(), mutant: None };
            let opts = Options { mode, sorted };
            let bits = |v: &[E]| v.iter().map(|x| u32::from(x.to_bits16())).collect::<Vec<_>>();
            for counts in [false, true].into_iter().filter(|&c| !c || bisects_too) {
                let config = SimConfig { sorted, counts, ..SimConfig::default() };
                let got = Simulator::new(config).run(&x, &args).unwrap();
                let case = format!("{case} {n} x {m} k={k} {mode:?} counts={counts}");
                assert!(got.diagnostics.is_empty(), "{case}: {}", got.summary);
                let branch = match got.plan.family() {
                    Family::ClusterRows => Branch::ClusterHistograms,
                    _ => Branch::BlockHistograms,
                };
                let reached = got.coverage.reached(branch);
                assert_eq!(reached, !counts, "{case}: {:?} {:?}", got.plan.unit, got.coverage);
                rows_are_bisects(&got, &x, (m, k, opts, counts), bits, &case);
            }
        }
        // a recall target bisects (its early end is the search's own, docs/contract.md §6)
        if bisects_too {
            let got = at_recall(&x, (n, m, k), SimConfig::default());
            assert!(!got.coverage.reached(Branch::ClusterHistograms), "{case} recall");
            assert!(!got.coverage.reached(Branch::BlockHistograms), "{case} recall");
        }
    }
    let mut rng = StdRng::seed_from_u64(43);
    for (dist, n, m, k) in [
        // block rows (a block a row), then split rows (their chunks and second stages)
        ("hostile", 64, 4001, 1000),
        ("ties", 96, 16_384, 16_383),
        ("normal", 128, 9000, 1),
        ("wide-ties", 40, 60_000, 2048),
        ("normal", 1, 100_000, 2048),
        ("normal", 2, 20_001, 1),
        ("hostile", 1, 40_003, 512),
        ("ties", 1, 49_152, 4000),
        ("wide-ties", 2, 30_000, 29_999),
        ("finite", 1, 65_536, 65_536),
        ("hostile", 1, 163_840, 2048),
    ] {
        let x = generate(dist, n, m, &mut rng);
        run::<f16>(&format!("{dist} f16"), &x, (n, m, k));
        run::<bf16>(&format!("{dist} bf16"), &x, (n, m, k));
    }
}

/// f32 block rows held in registers whose counts nobody asked for search from a histogram of
/// their values (`block_value_search`, docs/kernel.md "Value bins"), and answer as `bisect`
/// does: normal rows, zeros of both signs and subnormals among them, rows of subnormals only,
/// rows whose values share their leading bits (a bracket narrow beside its magnitude), values
/// near FLT_MAX / 2, ReLU's outputs (the k-th key in the first bin, which is not counted, or
/// above it), heavy and wide ties at the k-th value, NaN of both signs and infinities
/// (no value phase: the bins never run), k from 1 to M, widths that are not multiples of 32,
/// block rows and split rows (their chunks with the row's floor, and their second stages; on a
/// device without clusters), both modes, sorted or not; with counts asked, or a recall target, the row bisects as before.
#[test]
fn f32_block_rows_search_from_value_bins() {
    fn values(dist: &str, n: usize, m: usize, rng: &mut StdRng) -> Vec<f32> {
        let normal = |rng: &mut StdRng| -> f32 { StandardNormal.sample(rng) };
        match dist {
            "subnormal" => (0..n * m)
                .map(|_| {
                    let v = f32::from_bits(rng.random_range(1u32..0x80_0000));
                    if rng.random_range(0u8..2) == 0 { -v } else { v }
                })
                .collect(),
            // 2^10 plus a spread of a few hundred units in the last place
            "leading" => (0..n * m).map(|_| 1024.0 + normal(rng) * 1e-5).collect(),
            "huge" => (0..n * m).map(|_| normal(rng) * 5e37).collect(),
            // ReLU's outputs: half the row at its minimum, 0
            "relu" => (0..n * m).map(|_| normal(rng).max(0.0)).collect(),
            _ => generate(dist, n, m, rng),
        }
    }
    fn run(case: &str, x: &[f32], (n, m, k): (usize, usize, usize)) {
        for (mode, sorted) in [(Mode::Largest, false), (Mode::Smallest, true)] {
            let args = KernelArgs { n, m, k, mode, bisect: Bisect::exact(), mutant: None };
            let opts = Options { mode, sorted };
            for counts in [false, true] {
                let config =
                    SimConfig { limits: no_clusters(), sorted, counts, ..SimConfig::default() };
                let got = Simulator::new(config).run(x, &args).unwrap();
                let case = format!("{case} {n} x {m} k={k} {mode:?} counts={counts}");
                assert!(got.diagnostics.is_empty(), "{case}: {}", got.summary);
                let reached = got.coverage.reached(Branch::BlockValueBins);
                assert_eq!(reached, !counts, "{case}: {:?} {:?}", got.plan.unit, got.coverage);
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                rows_are_bisects(&got, x, (m, k, opts, counts), bits, &case);
            }
        }
        // a recall target bisects (its early end is the search's own, docs/contract.md §6)
        let got =
            at_recall(x, (n, m, k), SimConfig { limits: no_clusters(), ..SimConfig::default() });
        assert!(!got.coverage.reached(Branch::BlockValueBins), "{case} recall");
    }
    let mut rng = StdRng::seed_from_u64(47);
    for (dist, n, m, k) in [
        // block rows (a block a row), then split rows (their chunks and second stages)
        ("normal", 16, 2100, 400),
        ("finite", 8, 4001, 1000),
        ("hostile", 8, 4001, 1000),
        ("subnormal", 4, 3000, 700),
        ("leading", 4, 5003, 512),
        ("huge", 4, 6000, 1500),
        ("relu", 4, 3001, 500),
        ("relu", 4, 3001, 2000),
        ("ties", 6, 16_384, 16_383),
        ("wide-ties", 4, 9000, 2000),
        ("normal", 5, 9001, 1),
        ("finite", 3, 8192, 8192),
        ("normal", 4, 49_152, 1024),
        ("finite", 1, 100_000, 2048),
        ("wide-ties", 2, 40_003, 512),
        ("leading", 1, 65_536, 1000),
    ] {
        let x = values(dist, n, m, &mut rng);
        run(dist, &x, (n, m, k));
    }
}

/// The trace of a row run by many warps (a block row) or many blocks (a cluster row), each of
/// which runs the row's search: every step once, iterations 1, 2, ... up to the reported count,
/// and the trace's answer that of `bisect` (`check`).
#[test]
fn a_trace_holds_each_search_step_once_whoever_runs_the_row() {
    let mut rng = StdRng::seed_from_u64(41);
    for (dist, m, k, kernel) in [
        ("normal", 40_000, 2048, "cluster"),
        ("hostile", 20_000, 300, "cluster"),
        ("normal", 8000, 100, "block"),
    ] {
        let x = generate(dist, 1, m, &mut rng);
        let args =
            KernelArgs { n: 1, m, k, mode: Mode::Largest, bisect: Bisect::exact(), mutant: None };
        let mut sim = Simulator::new(SimConfig::default());
        let (_, trace) = sim.run_traced(&x, &args, 0).unwrap();
        assert!(trace.kernel.contains(kernel), "{dist} {m}: {}", trace.kernel);
        let iterations: Vec<u32> = trace.steps.iter().map(|s| s.iteration).collect();
        let want: Vec<u32> = (1..=trace.iterations).collect();
        assert!(iterations.len() > 2 && iterations == want, "{dist} {m}: {iterations:?}");
        check(SimConfig::default(), 1, m, &x, k, Mode::Largest, Bisect::exact()).unwrap();
    }
}

/// Many rows per launch, as the GPU runs them: partial last blocks, the plan's families for
/// shapes of the paper's grid (quarter-warp rows need 1024 rows per SM).
#[test]
fn many_rows_per_launch_equal_bisect() {
    let mut rng = StdRng::seed_from_u64(5);
    for (n, m, k) in [(1000, 256, 32), (137, 77, 9), (40, 300, 20)] {
        let x = generate("normal", n, m, &mut rng);
        check(SimConfig::default(), n, m, &x, k, Mode::Largest, Bisect::exact()).unwrap();
    }
    let few_sms = warp_sim::DeviceLimits {
        sm_count: 1,
        shared_optin_bytes: 232_448,
        max_cluster: 8,
        cluster_slots: rtopk_plan::ClusterSlots::UNKNOWN,
    };
    let x = generate("hostile", 1100, 64, &mut rng);
    let config = SimConfig { limits: few_sms, sorted: true, ..SimConfig::default() };
    let fam = check(config, 1100, 64, &x, 16, Mode::Smallest, Bisect::exact()).unwrap();
    assert_eq!(fam, Family::QuarterRows);
}

/// The last block of a grid of 2^32 elements and more (its input made from addresses, its
/// output held for its rows only): row offsets past 2^32 and the answer of `bisect`.
#[test]
fn the_last_block_of_a_grid_of_more_than_2_32_elements_equals_bisect() {
    fn value(i: u64) -> f32 {
        let h = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
        (h % 2001) as f32 * 0.25 - 250.0
    }
    let (n, m, k) = ((1usize << 23) + 8, 520usize, 8usize);
    let src = VirtualSource::new((n * m) as u64, m as u64, value);
    let args = KernelArgs { n, m, k, mode: Mode::Largest, bisect: Bisect::exact(), mutant: None };
    let rows = (n - 8) as u64..n as u64;
    let got = Simulator::new(SimConfig::default()).run_rows(&src, &args, rows.clone()).unwrap();
    assert!(got.diagnostics.is_empty(), "{}", got.summary);
    for (i, row) in rows.enumerate() {
        let x: Vec<f32> = (0..m as u64).map(|j| value(row * m as u64 + j)).collect();
        let want = topk_row(&args.bisect, &x, k, Options::default()).unwrap();
        assert_eq!(&got.indices[i * k..(i + 1) * k], want.indices.as_slice(), "row {row}");
        assert_eq!(got.iterations[i], want.stats.iterations.unwrap_or(0));
    }
}

/// N = 0 gives empty outputs; k = 0 gives empty rows; bad shapes, sizes and strategies are
/// errors, not panics or aborts.
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
    let r = sim.run::<f32>(&[], &args(0, 5, 2)).unwrap();
    assert!(r.indices.is_empty() && r.iterations.is_empty());
    let r = sim.run(&[1.0f32, 2.0], &args(1, 2, 0)).unwrap();
    assert_eq!((r.indices.len(), r.iterations), (0, vec![0]));
    assert!(sim.run(&[1.0f32, 2.0], &args(1, 2, 3)).is_err(), "k > M");
    assert!(sim.run(&[1.0f32, 2.0], &args(2, 2, 1)).is_err(), "data too short");
    // 64-bit rows run the wide rows alone (tests/wide.rs): a forced family of 32-bit keys is
    // a typed error, not a row read as another type
    let wide = sim.run(&[1.0f64, 2.0], &args(1, 2, 1)).unwrap();
    assert_eq!(
        (wide.indices, wide.plan.unit.to_string()),
        (vec![1], "rtopk_wide_rows_8_f64".into())
    );
    let mut forced = Simulator::new(SimConfig { strategy: Launch::Half, ..SimConfig::default() });
    let e = forced.run(&[1i64, 2], &args(1, 2, 1)).unwrap_err();
    assert!(matches!(e, SimError::InvalidLaunch(_)) && e.to_string().contains("int64"), "{e}");
    assert!(sim.run::<f32>(&[], &args(1, 0, 0)).is_err(), "M = 0");
    let bad = KernelArgs { bisect: Bisect { precision: -1.0, ..Bisect::exact() }, ..args(1, 2, 1) };
    assert!(sim.run(&[1.0f32, 2.0], &bad).is_err(), "negative precision");
    let mut quarter =
        Simulator::new(SimConfig { strategy: Launch::Quarter, ..SimConfig::default() });
    let err = quarter.run(&[0.0f32; 300], &args(1, 300, 1)).unwrap_err();
    assert!(
        matches!(err, SimError::InvalidLaunch(_)) && err.to_string().contains("quarter"),
        "{err}"
    );
    // Sizes are checked before anything is allocated: typed errors, never an abort.
    let too_wide = sim.prepare(&args(1, usize::MAX / 4, 1));
    assert!(matches!(too_wide, Err(SimError::TopK(TopKError::RowTooWide { .. }))), "{too_wide:?}");
    assert!(sim.prepare(&args(3, 300, 20)).is_ok());
}

/// Rows of 257 to 1024 in exact mode with k < 128 (whole-warp rows of 12 to 32 keys per
/// lane), and rows of 3073 to 8192 with k < 512 (block rows of 4 to 8 warps), narrow to at most
/// 128 / 512 candidates, and the answer stays bisect's; other rows never narrow.
#[test]
fn rows_in_the_narrowing_range_narrow_and_still_equal_bisect() {
    let mut rng = StdRng::seed_from_u64(7);
    let mut sim = Simulator::new(SimConfig::default());
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
        // a recall target narrows as exact mode does (and stops in the candidates)
        (700, 20, Bisect::with_recall(0.8).unwrap(), Some(128)),
        (5001, 400, Bisect::with_recall(0.9).unwrap(), Some(512)),
    ];
    for (m, k, b, cap) in cases {
        let narrows = cap.is_some();
        let n = 5;
        let x = generate("normal", n, m, &mut rng);
        let args = KernelArgs { n, m, k, mode: Mode::Largest, bisect: b, mutant: None };
        assert_eq!(args.cand_cap(), cap, "M = {m}, k = {k}");
        assert_eq!(sim.plan(&args).unwrap().narrows, narrows, "the plan agrees: M = {m}, k = {k}");
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

/// The teaching trace follows the family the plan picks, and names it.
#[test]
fn the_trace_names_the_family_it_shows() {
    let mut rng = StdRng::seed_from_u64(3);
    for (m, k, kernel) in [
        (40, 5, "rtopk_half_rows_4"),
        (700, 20, "rtopk_warp_rows_24"),
        (5001, 100, "rtopk_block_rows_narrow"),
        (2100, 300, "rtopk_block_rows"),
    ] {
        let x = generate("normal", 1, m, &mut rng);
        let args =
            KernelArgs { n: 1, m, k, mode: Mode::Largest, bisect: Bisect::exact(), mutant: None };
        let (got, trace) = Simulator::new(SimConfig::default()).run_traced(&x, &args, 0).unwrap();
        assert_eq!(trace.kernel, kernel);
        let text = trace.to_text();
        assert!(text.contains(kernel), "{text}");
        let taken: u32 = trace.chunks.iter().map(|c| c.sel_mask.count_ones()).sum();
        assert_eq!(taken as usize, k, "the chunks select k: {text}");
        assert_eq!(trace.out_idx, got.indices);
        assert_eq!(trace.keys.len(), m);
        for (i, key) in trace.keys.iter().enumerate() {
            assert_eq!(*key, topk_ref::order::key(x[i], Mode::Largest), "key {i}");
        }
    }
}

/// More than 10^5 random rows: four distributions × widths below, at and above 32 × k from 1
/// to M, both modes, exact, early stopping and a recall target, sorted and not, every strategy
/// that holds the width in turn.
#[test]
fn a_hundred_thousand_random_rows_equal_bisect() {
    let mut rng = StdRng::seed_from_u64(0xF00D);
    let widths = [1usize, 7, 31, 32, 33, 100, 256, 300, 700, 1500];
    let mut rows = 0usize;
    for dist in ["normal", "uniform", "ties", "hostile"] {
        for (wi, &m) in widths.iter().enumerate() {
            let n = (250_000 / (m + 40)).clamp(16, 3000);
            let choices = strategies(m, ElemType::F32);
            for batch in 0..2 {
                let k = rng.random_range(1..=m);
                let mode = if (wi + batch) % 2 == 0 { Mode::Largest } else { Mode::Smallest };
                let b = match (batch, wi % 2) {
                    (0, _) => Bisect::exact(),
                    (_, 0) => Bisect::early_stopping(rng.random_range(0..16)),
                    _ => Bisect::with_recall(rng.random_range(0.5f32..1.0)).unwrap(),
                };
                let x = if dist == "uniform" {
                    (0..n * m).map(|_| rng.random_range(-1.0f32..1.0)).collect()
                } else {
                    generate(dist, n, m, &mut rng)
                };
                let strategy = choices[(wi + 2 * batch) % choices.len()];
                let config = SimConfig { strategy, sorted: batch == 1, ..SimConfig::default() };
                check(config, n, m, &x, k, mode, b).unwrap_or_else(|e| {
                    panic!("{dist} M={m} k={k} {mode:?} {b:?} {strategy}: {e}")
                });
                rows += n;
            }
        }
    }
    assert!(rows >= 100_000, "{rows} rows");
}

/// The windows of a launch shared out among threads give what one simulator gives.
#[test]
fn a_launch_in_parallel_windows_equals_one_in_order() {
    let mut rng = StdRng::seed_from_u64(9);
    for (n, m, k, sorted) in [(9000, 40, 5, true), (5000, 300, 20, false), (3, 5001, 100, true)] {
        let x = generate("hostile", n, m, &mut rng);
        let args =
            KernelArgs { n, m, k, mode: Mode::Smallest, bisect: Bisect::exact(), mutant: None };
        let config = SimConfig { sorted, ..SimConfig::default() };
        let one = Simulator::new(config).run(&x, &args).unwrap();
        let par = warp_sim::launch_parallel(&x, &args, config).unwrap();
        assert_eq!(one, par, "n={n} m={m} k={k}");
    }
}

/// Split rows (docs/kernel.md, "Split rows"): each chunk's top k with the ordinary kernels,
/// the top k of the candidates, the indices gathered back — bisect's values and indices on
/// hostile rows and heavy ties, with a last chunk (and one narrower than k that joins the
/// chunk before it), none, equal chunks in place of a last one (rtopk_plan's `even_chunk`),
/// one row, k at a sixteenth and a quarter of the chunk, both modes,
/// sorted, block-row chunks, and a route whose candidates (past one block's registers, 32768)
/// are split again; no counts, no findings.
#[test]
fn split_rows_equal_bisect() {
    let mut rng = StdRng::seed_from_u64(21);
    let limits = no_clusters();
    let split =
        |sorted| SimConfig { strategy: Launch::Split, sorted, limits, ..SimConfig::default() };
    let no_counts = |sorted| SimConfig { counts: false, sorted, limits, ..SimConfig::default() };
    // (N, M, k, config, data, mode, (chunk, full, last) of the first split, depth)
    let cases = [
        (1, 5000, 256, split(false), "hostile", Mode::Largest, (2048, 2, 904), 1),
        (3, 4196, 200, split(true), "hostile", Mode::Smallest, (2048, 1, 2148), 1),
        (2, 8192, 1, split(false), "ties", Mode::Largest, (2048, 4, 0), 1),
        (2, 6000, 100, split(true), "ties", Mode::Smallest, (2048, 2, 1904), 1),
        (1, 20_000, 200, split(true), "wide-ties", Mode::Largest, (4000, 5, 0), 1), // equal chunks
        (2, 20_000, 100, split(false), "wide-ties", Mode::Smallest, (2048, 9, 1568), 1),
        (1, 16_500, 1024, split(true), "hostile", Mode::Largest, (4096, 3, 4212), 1),
        (1, 9000, 50, split(false), "hostile", Mode::Smallest, (2048, 4, 808), 1),
        (1, 40_000, 50, no_counts(false), "hostile", Mode::Smallest, (2048, 19, 1088), 1),
        (1, 70_000, 256, no_counts(true), "hostile", Mode::Largest, (5000, 14, 0), 1), // equal chunks
        (1, 270_000, 128, no_counts(true), "normal", Mode::Largest, (2048, 131, 1712), 1),
        (1, 600_000, 128, no_counts(false), "normal", Mode::Smallest, (2048, 292, 1984), 2),
    ];
    for (n, m, k, config, dist, mode, (chunk, full, last), depth) in cases {
        let args = KernelArgs { n, m, k, mode, bisect: Bisect::exact(), mutant: None };
        let route = Simulator::new(config).route(&args).unwrap();
        assert_eq!(route.depth(), depth, "M = {m}, k = {k}");
        let warp_sim::Route::Split { split, .. } = &route else { unreachable!() };
        assert_eq!((split.chunk, split.full, split.last), (chunk, full, last), "M = {m}");
        let x = generate(dist, n, m, &mut rng);
        check(config, n, m, &x, k, mode, Bisect::exact())
            .unwrap_or_else(|e| panic!("{dist} M={m} k={k} {mode:?}: {e}"));
        let par = warp_sim::launch_parallel(&x, &args, config).unwrap();
        assert_eq!(par.route, route, "launch_parallel follows the route");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Split rows of test-support's hostile elements (NaN of both signs with payloads, ±inf,
    /// ±0, subnormals, tie pools), any width from two chunks on and k up to an eighth of a
    /// chunk, forced.
    #[test]
    fn split_rows_of_hostile_values_equal_bisect(
        (n, m, x) in (1usize..3, 4096usize..12_000, test_support::pool(), 0u8..4)
            .prop_flat_map(|(n, m, pool, flavour)| {
                let values = prop::collection::vec(test_support::element(pool, flavour), n * m);
                (Just(n), Just(m), values)
            }),
        frac in 0.0f64..1.0, smallest: bool, sorted: bool,
    ) {
        let k = 1 + (frac * 255.0) as usize; // chunks of 2048 or 4096 hold at least 8 k
        let config = SimConfig { strategy: Launch::Split, sorted, ..SimConfig::default() };
        check(config, n, m, &x, k, Mode::from_smallest(smallest), Bisect::exact())?;
    }
}

/// Without iteration counts the default route splits the rows the CUDA launcher splits; with
/// them (the default) it never does. Split rows run whole and have no one row's journey; a
/// split of a row too short for two chunks, or of an approximate search, is an error.
#[test]
fn the_route_splits_only_without_counts_and_says_why_it_cannot() {
    let args = |m, k, bisect| KernelArgs { n: 1, m, k, mode: Mode::Largest, bisect, mutant: None };
    let exact = Bisect::exact();
    let mut rng = StdRng::seed_from_u64(4);
    // a row past one block's registers (rtopk-plan's BLOCK_REGISTER_ROW): split by default
    let x = generate("normal", 1, 40_000, &mut rng);
    let plain = SimConfig { limits: no_clusters(), ..SimConfig::default() };
    let counted = Simulator::new(plain).run(&x, &args(40_000, 30, exact)).unwrap();
    assert_eq!((counted.route.depth(), counted.iterations.len()), (0, 1));
    let config = SimConfig { counts: false, ..plain };
    let split = Simulator::new(config).run(&x, &args(40_000, 30, exact)).unwrap();
    assert_eq!((split.route.depth(), split.iterations.len()), (1, 0));
    assert_eq!((&split.indices, &split.values), (&counted.indices, &counted.values));
    assert_eq!(split.plan, split.route.plans()[0], "plan: the route's first");
    let err = Simulator::new(config).run_traced(&x, &args(40_000, 30, exact), 0).unwrap_err();
    assert!(matches!(err, SimError::InvalidLaunch(_)), "{err}");
    let src = VirtualSource::new(2 * 40_000, 40_000, |i| i as f32);
    let two = KernelArgs { n: 2, ..args(40_000, 30, exact) };
    let err = Simulator::new(config).run_rows(&src, &two, 1..2).unwrap_err();
    assert!(err.to_string().contains("split rows run whole"), "{err}");
    let forced = SimConfig { strategy: Launch::Split, ..SimConfig::default() };
    for (m, k, b) in [(4095, 1, exact), (9000, 30, Bisect::early_stopping(4)), (9000, 8193, exact)]
    {
        let err = Simulator::new(forced).run(&x[..m], &args(m, k, b)).unwrap_err();
        assert!(
            matches!(err, SimError::InvalidLaunch(_)) && err.to_string().contains("split"),
            "M = {m}, k = {k}: {err}"
        );
    }
}

/// Every warp sort (`rtopk_sort_warp_rows_<W>`, 8 to 1024 positions on 8, 16 or 32 lanes) at
/// k filling its width, one past the narrower width, and widths whose rows are not 16-byte
/// aligned (k % 4 != 0: one result at a time) or are (16-byte stores), on more rows than the
/// block sort takes, hostile rows and ties, both modes: bisect's sorted answer, no finding.
#[test]
fn every_warp_sort_width_sorts_like_bisect() {
    let mut rng = StdRng::seed_from_u64(31);
    let config = SimConfig { sorted: true, ..SimConfig::default() };
    let mut widths = std::collections::BTreeSet::new();
    for (k, dist) in [
        (2, "hostile"),
        (8, "ties"),
        (9, "hostile"),
        (16, "hostile"),
        (31, "ties"),
        (32, "hostile"),
        (60, "hostile"),
        (100, "ties"),
        (128, "hostile"),
        (130, "hostile"),
        (256, "ties"),
        (300, "hostile"),
        (513, "hostile"),
        (1024, "ties"),
    ] {
        let (n, m) = (8 * 132 + 3, k + 37);
        let x = generate(dist, n, m, &mut rng);
        let mode = if k % 2 == 0 { Mode::Largest } else { Mode::Smallest };
        check(config, n, m, &x, k, mode, Bisect::exact()).unwrap();
        let args = KernelArgs { n, m, k, mode, bisect: Bisect::exact(), mutant: None };
        let program = Simulator::new(config).run(&x, &args).unwrap();
        let sort = program.plan.sort.expect("a sort step");
        widths.insert(sort.unit.to_string());
    }
    let want: std::collections::BTreeSet<String> =
        [8, 16, 32, 64, 128, 256, 512, 1024].map(|w| format!("rtopk_sort_warp_rows_{w}")).into();
    assert_eq!(widths, want);
}

/// The block sort (`rtopk_sort_rows`) on every power of two it takes in shared memory — 512
/// and 1024 positions one compare-exchange a thread, 2048 to 8192 in registers
/// (`SORT_BLOCK_EPL` ranks a thread, the steps between warps through shared memory), 16384
/// one compare-exchange a thread of 1024 in the device's opt-in shared memory — k filling it
/// or one past the narrower, hostile rows and ties, both modes; and past what shared memory
/// holds (16384 on the default H100, 4096 without opt-in shared memory) in place in global
/// memory: bisect's sorted answer, no finding. On a device without clusters, where few rows
/// take it instead of the rank sort.
#[test]
fn the_block_sort_sorts_like_bisect() {
    let mut rng = StdRng::seed_from_u64(37);
    let config = SimConfig { sorted: true, limits: no_clusters(), ..SimConfig::default() };
    let no_optin = warp_sim::DeviceLimits { shared_optin_bytes: 0, ..no_clusters() };
    let no_optin = SimConfig { limits: no_optin, ..config };
    for (config, n, k, dist, shape) in [
        (config, 3, 257, "hostile", (512, 256, true)),
        (config, 2, 512, "ties", (512, 256, true)),
        (config, 1, 777, "hostile", (1024, 512, true)),
        (config, 2, 1025, "ties", (2048, 256, true)),
        (config, 1, 2048, "hostile", (2048, 256, true)),
        (config, 1, 4096, "ties", (4096, 512, true)),
        (config, 1, 4097, "hostile", (8192, 1024, true)),
        (config, 1, 8193, "ties", (16_384, 1024, true)),
        (config, 1, 16_385, "hostile", (32_768, 1024, false)),
        (no_optin, 1, 4097, "hostile", (8192, 1024, false)),
    ] {
        let m = 2 * k + 5;
        let x = generate(dist, n, m, &mut rng);
        let mode = if k % 2 == 0 { Mode::Largest } else { Mode::Smallest };
        check(config, n, m, &x, k, mode, Bisect::exact())
            .unwrap_or_else(|e| panic!("{dist} {n} x {m} k={k}: {e}"));
        let args = KernelArgs { n, m, k, mode, bisect: Bisect::exact(), mutant: None };
        let sort = Simulator::new(config).run(&x, &args).unwrap().plan.sort.expect("a sort");
        assert_eq!(sort.unit.to_string(), "rtopk_sort_rows", "k={k}");
        let got = sort.shape.map(|s| (s.pow2, s.row_threads, s.in_shared));
        assert_eq!(got, Some(shape), "k={k}");
    }
}

/// The merge sort (`rtopk_sort_rows` over a cluster a row: `sort_merge_row`) where few rows of
/// k > 4096 take it — runs of 2048 positions on 4, 8 and 16 blocks, and of 4096 on 8 blocks
/// (a device of portable clusters) — k one past a power of two (runs past the row's results
/// hold none), not a multiple of a warp, on hostile rows and ties (`generate`: NaN of both
/// signs, ±inf, -0.0 and subnormals), both modes: bisect's sorted answer, no finding (the engine
/// checks the cluster's barriers and every access).
#[test]
fn the_merge_sort_sorts_like_bisect() {
    let mut rng = StdRng::seed_from_u64(43);
    let wide = SimConfig::default().limits;
    let portable = warp_sim::DeviceLimits { max_cluster: 8, ..wide };
    for (n, k, dist, limits, parts) in [
        (1, 6000, "hostile", wide, 4),
        (3, 4097, "ties", wide, 4),
        (2, 9000, "hostile", wide, 8),
        (1, 16_385, "hostile", wide, 16),
        (1, 16_385, "ties", portable, 8),
    ] {
        let got = sorted_like_bisect(limits, (n, k, dist), &mut rng);
        assert!(got.coverage.reached(Branch::SortMerge), "k={k}");
        let shape = got.plan.sort.and_then(|s| s.shape).expect("a block sort");
        assert_eq!((shape.parts, shape.merges), (parts, true), "k={k}");
    }
}

/// Sorted output of `n` rows of `k + 37` drawn from `dist` (`generate`) at k on a device of
/// `limits`, checked against bisect in both modes; the largest's run, for the caller's checks
/// of the sort it took.
fn sorted_like_bisect(
    limits: warp_sim::DeviceLimits,
    (n, k, dist): (usize, usize, &str),
    rng: &mut StdRng,
) -> warp_sim::LaunchResult<f32> {
    let config = SimConfig { sorted: true, limits, ..SimConfig::default() };
    let m = k + 37;
    let x = generate(dist, n, m, rng);
    for mode in [Mode::Largest, Mode::Smallest] {
        check(config, n, m, &x, k, mode, Bisect::exact())
            .unwrap_or_else(|e| panic!("{dist} {n} x {m} k={k}: {e}"));
    }
    let args = KernelArgs { n, m, k, mode: Mode::Largest, bisect: Bisect::exact(), mutant: None };
    Simulator::new(config).run(&x, &args).unwrap()
}

/// The rank sort (`rtopk_sort_rows` over a cluster a row: `sort_rank_row`) where few rows of
/// k <= 2048 take it — clusters of 16 blocks and of 8 (a device of portable clusters), k just
/// past the warp sorts, not a multiple of the blocks or of a warp, one past a power of two, and
/// 2048 (32 slots of 32 lanes a block) — on hostile rows and ties (`generate`: NaN of both
/// signs, ±inf, -0.0 and subnormals), both modes: bisect's sorted answer, no finding (the
/// engine checks the cluster's barrier and every access).
#[test]
fn the_rank_sort_sorts_like_bisect() {
    let mut rng = StdRng::seed_from_u64(41);
    let portable = warp_sim::DeviceLimits { max_cluster: 8, ..SimConfig::default().limits };
    for (n, k, dist, limits, parts) in [
        (3, 257, "hostile", SimConfig::default().limits, 16),
        (2, 300, "ties", SimConfig::default().limits, 16),
        (1, 777, "hostile", portable, 8),
        (7, 1025, "ties", SimConfig::default().limits, 16),
        (1, 2048, "hostile", SimConfig::default().limits, 16),
    ] {
        let sort = sorted_like_bisect(limits, (n, k, dist), &mut rng).plan.sort.expect("a sort");
        assert_eq!(sort.unit.to_string(), "rtopk_sort_rows", "k={k}");
        assert_eq!(sort.shape.map(|s| (s.parts, s.merges)), Some((parts, false)), "k={k}");
    }
    // 9 rows of 16 blocks outnumber an H100's 132 SMs: the block sort
    let config = SimConfig { sorted: true, ..SimConfig::default() };
    let x = generate("normal", 9, 600, &mut rng);
    let args = KernelArgs {
        n: 9,
        m: 600,
        k: 300,
        mode: Mode::Largest,
        bisect: Bisect::exact(),
        mutant: None,
    };
    let sort = Simulator::new(config).run(&x, &args).unwrap().plan.sort.expect("a sort");
    assert_eq!(sort.shape.map(|s| s.parts), Some(1));
}
