//! The simulator's executor of the launch program: every step kind (`select_rows`,
//! `select_chunks`, `select_last_chunks`, `sort_rows`, `gather_indices`) run against
//! topk-ref's bisect — values, indices, and the iteration counts where the program has them —
//! on several rows (a wrong row stride hides at N = 1), in f32 and a 16-bit type; the coverage
//! a run reports; and the program's invariants the executor checks (a split row's chunks cover
//! it exactly; a gathered index names the element it claims).

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use topk_ref::{Bisect, Element, KeyBits, Mode, Options, f16, topk_row};
use warp_sim::rtopk::Strategy as Launch;
use warp_sim::{
    Branch, DiagKind, ElemType, KernelArgs, LaunchResult, Mutant, SimConfig, Simulator,
};

/// Rows of normal numbers laced with NaN of both signs, ±inf, ±0, subnormals and ties.
fn hostile(n: usize, m: usize, seed: u64) -> Vec<f32> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n * m)
        .map(|_| match rng.random_range(0u32..24) {
            0 => f32::NAN,
            1 => -f32::NAN,
            2 => f32::INFINITY,
            3 => f32::NEG_INFINITY,
            4 => -0.0,
            5 => 0.0,
            6 => f32::from_bits(rng.random_range(1u32..0x80_0000)),
            7..=9 => f32::from(rng.random_range(0u8..4)),
            _ => StandardNormal.sample(&mut rng),
        })
        .collect()
}

/// Runs `x` and checks every row against bisect; returns the result.
fn check<E: Element>(
    config: SimConfig,
    (n, m, k, mode): (usize, usize, usize, Mode),
    x: &[E],
) -> LaunchResult<E>
where
    Bisect: topk_ref::RowTopKOf<E>,
{
    let args = KernelArgs { n, m, k, mode, bisect: Bisect::exact(), mutant: None };
    let got = Simulator::new(config).run(x, &args).unwrap();
    assert!(got.diagnostics.is_empty(), "N={n} M={m} k={k}: {}", got.summary);
    let opts = Options { mode, sorted: config.sorted };
    for r in 0..n {
        let want = topk_row(&Bisect::exact(), &x[r * m..(r + 1) * m], k, opts).unwrap();
        let at = format!("{} N={n} M={m} k={k} row {r}", E::NAME);
        assert_eq!(&got.indices[r * k..(r + 1) * k], want.indices.as_slice(), "{at}");
        let bits = |v: &[E]| v.iter().map(|e| e.to_bits().to_u32()).collect::<Vec<_>>();
        assert_eq!(bits(&got.values[r * k..(r + 1) * k]), bits(&want.values), "{at}");
        if got.coverage.ran("gather_indices") {
            assert!(got.iterations.is_empty(), "{at}: a split row has no count");
        } else {
            assert_eq!(got.iterations[r], want.stats.iterations.unwrap_or(0), "{at}");
        }
    }
    got
}

/// The step names a run executed, in the program's order.
fn steps(config: SimConfig, n: usize, m: usize, k: usize, elem: ElemType) -> Vec<&'static str> {
    let args = KernelArgs { n, m, k, mode: Mode::Largest, bisect: Bisect::exact(), mutant: None };
    let p = Simulator::new(config).program(&args, elem).unwrap();
    p.steps.iter().map(|s| s.name.name()).collect()
}

/// (config, N, M, k, mode, the steps of its program).
type Case = (SimConfig, usize, usize, usize, Mode, &'static [&'static str]);

#[test]
fn every_step_kind_equals_bisect_in_f32_and_f16() {
    let split = |sorted| SimConfig { strategy: Launch::Split, sorted, ..SimConfig::default() };
    let sorted = SimConfig { sorted: true, ..SimConfig::default() };
    // without clusters: the default splits these rows (few long rows, no counts wanted)
    let limits = warp_sim::DeviceLimits { max_cluster: 1, ..SimConfig::default().limits };
    let no_counts = SimConfig { counts: false, limits, ..SimConfig::default() };
    // (config, N, M, k, mode, the steps)
    let cases: [Case; 8] = [
        (SimConfig::default(), 5, 300, 7, Mode::Largest, &["select_rows"]),
        (sorted, 2, 20_000, 300, Mode::Smallest, &["select_rows", "sort_rows"]), // cluster rows
        (sorted, 4, 2000, 40, Mode::Smallest, &["select_rows", "sort_rows"]),
        (
            split(false),
            3,
            8192,
            64,
            Mode::Largest,
            &["select_chunks", "select_rows", "gather_indices"],
        ),
        (
            split(true),
            3,
            5000,
            100,
            Mode::Smallest,
            &["select_chunks", "select_last_chunks", "select_rows", "sort_rows", "gather_indices"],
        ),
        // equal chunks where 4096 would leave a last one (rtopk_plan::split::even_chunk): two
        // of 4100 in f32; f16 keeps 4096 and a last chunk (4100 is not whole 16-byte groups)
        (
            split(false),
            3,
            8200,
            1000,
            Mode::Largest,
            &["select_chunks", "select_rows", "gather_indices"],
        ),
        (
            no_counts,
            3,
            40_000,
            50,
            Mode::Largest,
            &["select_chunks", "select_last_chunks", "select_rows", "gather_indices"],
        ),
        (
            no_counts,
            2,
            600_000,
            128,
            Mode::Largest,
            &[
                "select_chunks",
                "select_last_chunks",
                "select_chunks",
                "select_last_chunks",
                "select_rows",
                "gather_indices",
                "gather_indices",
            ],
        ),
    ];
    for (i, (config, n, m, k, mode, want)) in cases.into_iter().enumerate() {
        assert_eq!(steps(config, n, m, k, ElemType::F32), want, "N={n} M={m} k={k}");
        let x = hostile(n, m, 7 + i as u64);
        let got = check(config, (n, m, k, mode), &x);
        for s in want {
            assert!(got.coverage.ran(s), "{s} not in {:?}", got.coverage.steps);
        }
        if m <= 9000 {
            let x16: Vec<f16> = x.iter().map(|&v| f16::from_f32(v)).collect();
            let got = check(config, (n, m, k, mode), &x16);
            assert!(got.coverage.reached(Branch::Elem16));
        }
    }
}

#[test]
fn coverage_names_the_branches_a_run_took() {
    let run = |config: SimConfig, n, m, k, bisect, x: &[f32]| {
        let args = KernelArgs { n, m, k, mode: Mode::Largest, bisect, mutant: None };
        Simulator::new(config).run(x, &args).unwrap().coverage
    };
    let exact = Bisect::exact();
    let x: Vec<f32> = (0..9 * 300).map(|i| ((i * 7919) % 1009) as f32).collect();
    // whole-warp rows of 300 narrow (k < 128); early stopping never does
    let c = run(SimConfig::default(), 9, 300, 20, exact, &x);
    assert!(c.reached(Branch::WarpRows) && c.reached(Branch::Narrowed), "{c:?}");
    assert_eq!(c.branches.get("warp_rows"), Some(&9));
    assert!(!c.reached(Branch::EarlyStop) && !c.reached(Branch::SplitRows));
    let c = run(SimConfig::default(), 9, 300, 20, Bisect::early_stopping(3), &x);
    assert!(c.reached(Branch::EarlyStop) && !c.reached(Branch::Narrowed), "{c:?}");
    // rows of ±inf only: no value phase, the search bisects keys
    let inf: Vec<f32> =
        (0..4 * 64).map(|i| if i % 3 == 0 { f32::INFINITY } else { f32::NEG_INFINITY }).collect();
    let c = run(SimConfig::default(), 4, 64, 10, exact, &inf);
    assert!(c.reached(Branch::KeyPhase) && c.reached(Branch::HalfRows), "{c:?}");
    // block rows past their registers, sorted in shared memory (a device without clusters,
    // where one row takes the block sort, not the rank sort)
    let x = hostile(1, 35_000, 2);
    let limits = warp_sim::DeviceLimits { max_cluster: 1, ..SimConfig::default().limits };
    let block = SimConfig { strategy: Launch::Block, sorted: true, limits, ..SimConfig::default() };
    let c = run(block, 1, 35_000, 1100, exact, &x);
    assert!(c.reached(Branch::BlockRows) && c.reached(Branch::SharedKeys), "{c:?}");
    // its loads staged through the shared memory its cached keys then take
    assert!(c.reached(Branch::StagedLoads), "{c:?}");
    assert!(c.reached(Branch::SortShared) && c.ran("sort_rows") && !c.reached(Branch::Rekeyed));
    // with clusters, the rank sort
    let ranked = SimConfig { limits: SimConfig::default().limits, ..block };
    let c = run(ranked, 1, 35_000, 1100, exact, &x);
    assert!(c.reached(Branch::SortRank) && !c.reached(Branch::SortShared), "{c:?}");
    // split rows and their last chunk
    let x = hostile(2, 5000, 3);
    let split = SimConfig { strategy: Launch::Split, ..SimConfig::default() };
    let c = run(split, 2, 5000, 100, exact, &x);
    assert!(c.reached(Branch::SplitRows) && c.reached(Branch::LastChunk), "{c:?}");
    assert_eq!(c.steps.get("gather_indices"), Some(&1));
    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(json["steps"]["select_chunks"], 1);
    assert!(json["branches"]["split_rows"].as_u64().unwrap() > 0);
    for b in Branch::ALL {
        assert_eq!(Branch::parse(b.name()), Some(b));
    }
}

/// A run's cluster barriers are counted once per cluster, summed over the run: a cluster row
/// meets at its first barrier, its range, each count or round of its search and the
/// selection's placing; rows that take no cluster meet at none.
#[test]
fn coverage_counts_a_cluster_rows_barriers_once_per_cluster() {
    let barriers = |n: usize, m: usize, bisect: Bisect, x: &[f32]| {
        let args = KernelArgs { n, m, k: 512, mode: Mode::Largest, bisect, mutant: None };
        let got = Simulator::new(SimConfig::default()).run(x, &args).unwrap();
        got.coverage.branches.get("cluster_barriers").copied().unwrap_or(0)
    };
    let m = 49_152; // six blocks of a cluster, as the plan gives one such row
    let mut rng = StdRng::seed_from_u64(21);
    let normal: Vec<f32> = (0..m).map(|_| StandardNormal.sample(&mut rng)).collect();
    // a normal row narrows within its blocks and searches a few rounds of four steps
    let one = barriers(1, m, Bisect::exact(), &normal);
    assert!((5..=16).contains(&one), "{one}");
    // hostile rows (infinities, NaNs, ties): more counts, as many per row however many rows —
    // each cluster counted once, not once per block
    let hostile_row = hostile(1, m, 21);
    let one = barriers(1, m, Bisect::exact(), &hostile_row);
    assert!(one > 16, "{one}");
    assert_eq!(barriers(3, m, Bisect::exact(), &hostile_row.repeat(3)), 3 * one);
    // no search step: the first barrier, the range and the placing alone
    assert_eq!(barriers(1, m, Bisect::early_stopping(0), &normal), 3);
    // warp rows meet at no cluster barrier
    assert_eq!(barriers(2, 600, Bisect::exact(), &hostile(2, 600, 1)), 0);
}

/// A launch over a split row's last chunks one element short drops the row's last element
/// from the candidates: where that element is not in the top k, the output is right, and only
/// the executor's coverage invariants see it — by the launches' arguments always, and by the
/// reads where no 16-byte load reads the element anyway (a width of no whole 16-byte groups),
/// on every row, not only the first.
#[test]
fn a_last_chunk_one_element_short_is_caught_by_the_coverage_invariant() {
    for m in [5000, 5001] {
        let (n, k) = (3, 100);
        let mut x = hostile(n, m, 11);
        for r in 0..n {
            x[r * m + m - 1] = -1.0e30; // never among the largest
        }
        let config = SimConfig { strategy: Launch::Split, ..SimConfig::default() };
        let args =
            |mutant| KernelArgs { n, m, k, mode: Mode::Largest, bisect: Bisect::exact(), mutant };
        let clean = Simulator::new(config).run(&x, &args(None)).unwrap();
        assert!(clean.diagnostics.is_empty(), "{}", clean.summary);
        let bad = Simulator::new(config).run(&x, &args(Some(Mutant::LastChunkDropsOne))).unwrap();
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bad.indices, clean.indices, "the oracle is blind");
        assert_eq!(bits(&bad.values), bits(&clean.values), "the oracle is blind");
        let labels: Vec<&str> = bad.diagnostics.iter().map(|d| d.label).collect();
        assert!(bad.diagnostics.iter().all(|d| d.kind == DiagKind::AssertFailed), "{labels:?}");
        let cover = bad.diagnostics.iter().find(|d| d.label.contains("cover each row exactly"));
        let cover = cover.unwrap_or_else(|| panic!("{labels:?}"));
        assert_eq!(cover.address, Some(m as u64 - 1), "the first row's last element");
        if m % 4 != 0 {
            let unread = bad.diagnostics.iter().find(|d| d.label.contains("read by its chunk"));
            let unread = unread.unwrap_or_else(|| panic!("{labels:?}"));
            assert_eq!(unread.address, Some(m as u64 - 1), "the first row's last element");
            assert_eq!(unread.lanes, n as u32, "one element of each row");
        }
    }
}

/// A gathered index must lie in the chunk its candidate came from, not only name an element
/// of equal bits: where the first and the second chunk hold equal values at the same offset,
/// the index within the second chunk taken for the row's names the first chunk's, of the same
/// bits, and only the chunk check sees it.
#[test]
fn a_gathered_index_outside_its_chunk_is_reported() {
    let (n, m, k) = (2, 8192, 2);
    let x: Vec<f32> =
        (0..n * m).map(|i| f32::from(u8::from(i % m % 2048 == 5 && i % m < 4096))).collect();
    let config = SimConfig { strategy: Launch::Split, ..SimConfig::default() };
    let args =
        |mutant| KernelArgs { n, m, k, mode: Mode::Largest, bisect: Bisect::exact(), mutant };
    assert!(Simulator::new(config).run(&x, &args(None)).unwrap().diagnostics.is_empty());
    let bad = Simulator::new(config).run(&x, &args(Some(Mutant::SplitGatherNoChunkStart))).unwrap();
    let labels: Vec<&str> = bad.diagnostics.iter().map(|d| d.label).collect();
    assert!(labels.iter().any(|l| l.contains("lies in the candidate's chunk")), "{labels:?}");
}

/// A split's floor (docs/kernel.md, "Split rows: the floor"): chunks with at most k keys at
/// or above their row's floor select those and pad, the others search from it and raise it —
/// bisect's answer either way, on rows whose order makes every chunk after the first cut
/// (descending), every chunk raise (ascending), shuffled normal rows (both), hostile values and
/// heavy ties, in both modes, f32 and f16, over warp-row chunks (k = 64) and narrowing
/// block-row chunks (k = 256).
#[test]
fn split_rows_cut_at_their_floor_equal_bisect() {
    let split = SimConfig { strategy: Launch::Split, ..SimConfig::default() };
    let (n, m) = (2, 40_000);
    let normal = |seed| {
        let mut rng = StdRng::seed_from_u64(seed);
        (0..n * m).map(|_| StandardNormal.sample(&mut rng)).collect::<Vec<f32>>()
    };
    let mut ascending = normal(5);
    ascending.chunks_mut(m).for_each(|r| r.sort_by(f32::total_cmp));
    let descending: Vec<f32> = ascending.chunks(m).flat_map(|r| r.iter().rev().copied()).collect();
    let ties: Vec<f32> = (0..n * m).map(|i| ((i * 7919) % 5) as f32).collect();
    let rows = [
        ("normal", normal(4)),
        ("ascending", ascending),
        ("descending", descending),
        ("hostile", hostile(n, m, 6)),
        ("ties", ties),
    ];
    let (mut cut, mut raised) = (0, 0);
    for (name, x) in &rows {
        for k in [64, 256] {
            for mode in [Mode::Largest, Mode::Smallest] {
                let got = check(split, (n, m, k, mode), x.as_slice());
                let c = &got.coverage;
                assert!(c.reached(Branch::SplitRows), "{name} k={k} {mode:?}: {c:?}");
                cut += c.branches.get("floor_cut").copied().unwrap_or(0);
                raised += c.branches.get("floor_raised").copied().unwrap_or(0);
                if *name == "descending" && mode == Mode::Largest {
                    assert!(c.reached(Branch::FloorCut), "{name} k={k}: {c:?}");
                }
                let x16: Vec<f16> = x.iter().map(|&v| f16::from_f32(v)).collect();
                check(split, (n, m, k, mode), x16.as_slice());
            }
        }
    }
    assert!(cut > 0 && raised > 0, "chunks cut {cut}, raised {raised}");
}

/// A split's second stage that the plan gives the radix select (its candidates a small
/// selection, rtopk_plan::takes_radix): one f16 row of 2^24 at k = 1024, split (the default
/// reads it with the sampled radix select), splits once, with the row's floor, and the radix
/// select takes the row's top k from the candidates (never a pad) — bisect's answer in both
/// modes, sorted or not, on normal and hostile rows.
#[test]
fn a_split_whose_second_stage_is_a_radix_select_equals_bisect() {
    let (n, m, k) = (1, 1 << 24, 1024);
    let auto = SimConfig { counts: false, ..SimConfig::default() };
    assert_eq!(steps(auto, n, m, k, ElemType::F16)[0], "radix_sample");
    let config = SimConfig { strategy: Launch::Split, ..auto };
    let want = ["select_chunks", "radix_digits", "radix_digits", "radix_count", "radix_write"];
    assert_eq!(steps(config, n, m, k, ElemType::F16)[..5], want);
    let mut rng = StdRng::seed_from_u64(11);
    let normal: Vec<f16> =
        (0..n * m).map(|_| f16::from_f32(StandardNormal.sample(&mut rng))).collect();
    let hostile: Vec<f16> = hostile(n, m, 12).into_iter().map(f16::from_f32).collect();
    let cases = [
        ("normal", &normal, Mode::Largest, false),
        ("normal", &normal, Mode::Smallest, true),
        ("hostile", &hostile, Mode::Largest, true),
        ("hostile", &hostile, Mode::Smallest, false),
    ];
    for (name, x, mode, sorted) in cases {
        let got = check(SimConfig { sorted, ..config }, (n, m, k, mode), x.as_slice());
        let c = &got.coverage;
        assert!(c.ran("radix_write") && c.ran("gather_indices"), "{name} {mode:?}: {c:?}");
        // in order, every chunk after the first few finds the floor above its k-th key
        assert!(name == "hostile" || c.reached(Branch::FloorCut), "{name} {mode:?}: {c:?}");
    }
}

/// Chunks launch chunk-major (docs/kernel.md, "Split rows"), and each row keeps a floor of its
/// own: three descending rows of very different scales, where the floor of the row of large
/// values, read by another row's chunk, would cut away that row's whole top k — each row equal
/// to bisect, and later chunks cut at their row's floor.
#[test]
fn each_row_of_a_chunk_major_split_cuts_at_its_own_floor() {
    let split = SimConfig { strategy: Launch::Split, ..SimConfig::default() };
    let (n, m, k) = (3, 30_000, 64);
    let scales = [1.0f32, 1000.0, 0.001];
    let x: Vec<f32> =
        scales.iter().flat_map(|&s| (0..m).rev().map(move |i| i as f32 * s)).collect();
    let got = check(split, (n, m, k, Mode::Largest), x.as_slice());
    let cut = got.coverage.branches.get("floor_cut").copied().unwrap_or(0);
    assert!(cut >= n as u64, "chunks cut at their floor: {cut}");
}
