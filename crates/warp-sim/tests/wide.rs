//! 64-bit rows (f64 and i64, docs/kernel.md "64-bit rows"): every request runs the wide rows
//! (`rtopk_wide_rows_<EPL>_<f64|i64>`), and the simulated kernel *is* topk-ref's bisect on the
//! same 64-bit input — identical indices, value bits (the input's own 64 bits, NaN payloads
//! kept) and iteration counts — on rows built to break it (NaN of both signs and any payload,
//! ±inf, ±0, subnormals, ±f64::MAX, i64::MIN / MAX, heavy ties, adjacent values), widths that
//! are not multiples of 32, held in registers (up to 1024) and re-keyed past them, k ∈ {0, 1,
//! M−1, M} and between, N not a multiple of 4, both modes, exact, with a precision, early
//! stopping (0 to 11 steps) and a recall target, sorted (by the kernel itself) and not; through
//! `Simulator::run`, `launch_parallel` and the row-wise `SimTopK`; with no diagnostic. Seeded
//! bugs of the kernel's sort are caught by the simulator's diagnostics.

// Ragged 64-bit rows: lengths, k per row, hints, thresholds.
#[path = "wide/ragged.rs"]
mod ragged;

use proptest::prelude::*;
use test_support::{int_extremes, int_value, ordinary_f64, pick_k, special_f64};
use topk_ref::{Bisect, Element, KeyBits, Mode, Options, topk_row};
use warp_sim::rtopk::Strategy as Launch;
use warp_sim::{
    Branch, DiagKind, Family, KernelArgs, LaunchResult, Mutant, RowData, SimConfig, SimError,
    SimTopK, Simulator, launch_parallel,
};

/// What a check runs: the configuration's sorted output and counts, the search, the bug.
#[derive(Clone, Copy, Debug)]
struct Run {
    sorted: bool,
    counts: bool,
    bisect: Bisect,
    mutant: Option<Mutant>,
}

impl Run {
    fn new(sorted: bool, bisect: Bisect) -> Self {
        Self { sorted, counts: true, bisect, mutant: None }
    }

    fn config(&self) -> SimConfig {
        SimConfig { sorted: self.sorted, counts: self.counts, ..SimConfig::default() }
    }

    fn args(&self, n: usize, m: usize, k: usize, mode: Mode) -> KernelArgs {
        KernelArgs { n, m, k, mode, bisect: self.bisect, mutant: self.mutant }
    }
}

/// The elements' bits.
fn bits<E: Element>(v: &[E]) -> Vec<u64> {
    v.iter().map(|e| e.to_bits().to_u64()).collect()
}

/// The keys per lane of the unit that holds rows of `m` (`WIDE_WIDTHS`: the narrowest that
/// holds the row, the widest past 1024).
fn epl_of(m: usize) -> usize {
    [8, 16, 24, 32].into_iter().find(|&w| 32 * w >= m).unwrap_or(32)
}

/// Every row of `got` against topk-ref's `Bisect` on the same row: indices, value bits and
/// (where counted) iterations.
fn same_as_bisect<E: Element>(
    got: &LaunchResult<E>,
    (n, m, x): (usize, usize, &[E]),
    (k, mode): (usize, Mode),
    run: Run,
) -> Result<(), TestCaseError> {
    let unit = got.plan.unit;
    let opts = Options { mode, sorted: run.sorted };
    for r in 0..n {
        let want = topk_row(E::as_dyn(&run.bisect), &x[r * m..(r + 1) * m], k, opts).unwrap();
        let (lo, hi) = (r * k, (r + 1) * k);
        prop_assert_eq!(&got.indices[lo..hi], want.indices.as_slice(), "{} row {}", unit, r);
        prop_assert_eq!(bits(&got.values[lo..hi]), bits(&want.values), "{} row {}", unit, r);
        if run.counts {
            let it = want.stats.iterations.unwrap_or(0);
            prop_assert_eq!(got.iterations[r], it, "{} row {}", unit, r);
        }
    }
    if !run.counts {
        prop_assert!(got.iterations.is_empty(), "{}: counts nobody asked for", unit);
    }
    Ok(())
}

/// The simulator on the `(n, m)` matrix `x` of 64-bit elements against topk-ref's `Bisect`,
/// on the wide rows of `E`'s unit, with no diagnostic; the launch's result.
fn check<E: Element>(
    (n, m, x): (usize, usize, &[E]),
    (k, mode): (usize, Mode),
    run: Run,
) -> Result<LaunchResult<E>, TestCaseError> {
    let args = run.args(n, m, k, mode);
    let got = Simulator::new(run.config())
        .run(x, &args)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let unit = got.plan.unit;
    prop_assert_eq!(unit.family(), Family::WideRows, "{}", unit);
    prop_assert_eq!(unit.to_string(), format!("rtopk_wide_rows_{}_{}", epl_of(m), E::NAME));
    prop_assert!(got.diagnostics.is_empty(), "{}: {}", unit, got.summary);
    same_as_bisect(&got, (n, m, x), (k, mode), run)?;
    Ok(got)
}

/// Bisect's configurations: exact, a precision relative to |max|, early stopping of 0 to 11
/// steps, a recall target.
fn bisect() -> impl Strategy<Value = Bisect> {
    prop_oneof![
        3 => Just(Bisect::exact()),
        1 => (0.0f32..0.5).prop_map(|p| Bisect::with_precision(p).unwrap()),
        2 => (0u32..12).prop_map(Bisect::early_stopping),
        2 => (0.01f32..1.0).prop_map(|r| Bisect::with_recall(r).unwrap()),
    ]
}

/// Widths: short rows, rows held in one unit's registers (up to 1024), rows re-keyed past
/// them; N of 1 to 6 rows (blocks of 4, partly filled).
fn shape() -> impl Strategy<Value = (usize, usize)> {
    let m = prop_oneof![4 => 1usize..=64, 3 => 65usize..=300, 2 => 301usize..=1024, 1 => 1025usize..=1300];
    (1usize..=6, m)
}

/// One f64: ordinary numbers, their ulp neighbours, any finite value, or a special one.
fn any_f64() -> BoxedStrategy<f64> {
    prop_oneof![4 => ordinary_f64(), 2 => special_f64()].boxed()
}

/// `(n, m, values)` of f64, one flavour: mixed; only values of a pool of 1–4 (heavy ties);
/// specials only; values a few ulps apart (the value phase stalls).
fn matrix_f64() -> impl Strategy<Value = (usize, usize, Vec<f64>)> {
    let pool = prop::collection::vec(any_f64(), 1..5);
    (shape(), pool, 0u8..4).prop_flat_map(|((n, m), pool, flavour)| {
        let element = match flavour {
            0 => any_f64(),
            1 => prop::sample::select(pool).boxed(),
            2 => special_f64().boxed(),
            _ => (0u64..6, any::<bool>())
                .prop_map(|(d, neg)| {
                    f64::from_bits(1.5f64.to_bits() + d) * if neg { -1.0 } else { 1.0 }
                })
                .boxed(),
        };
        (Just(n), Just(m), prop::collection::vec(element, n * m))
    })
}

/// `(n, m, values)` of i64, one flavour: mixed; a pool of 1–4 (heavy ties); extremes only.
fn matrix_i64() -> impl Strategy<Value = (usize, usize, Vec<i64>)> {
    let pool = prop::collection::vec(int_value::<i64>(), 1..5);
    (shape(), pool, 0u8..3).prop_flat_map(|((n, m), pool, flavour)| {
        let element = match flavour {
            0 => int_value::<i64>(),
            1 => prop::sample::select(pool).boxed(),
            _ => prop::sample::select(int_extremes::<i64>()).boxed(),
        };
        (Just(n), Just(m), prop::collection::vec(element, n * m))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// f64 rows: indices, value bits and iteration counts are bisect's.
    #[test]
    fn f64_rows_equal_bisect(x in matrix_f64(), which in 0u8..6, frac in 0.0f64..1.0,
                             smallest: bool, sorted: bool, b in bisect()) {
        let k = pick_k(x.1, which, frac);
        check((x.0, x.1, &x.2), (k, Mode::from_smallest(smallest)), Run::new(sorted, b))?;
    }

    /// i64 rows: the key phase alone, bisect's answer and counts.
    #[test]
    fn i64_rows_equal_bisect(x in matrix_i64(), which in 0u8..6, frac in 0.0f64..1.0,
                             smallest: bool, sorted: bool, b in bisect()) {
        let k = pick_k(x.1, which, frac);
        check((x.0, x.1, &x.2), (k, Mode::from_smallest(smallest)), Run::new(sorted, b))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 100, ..ProptestConfig::default() })]

    /// Without counts the same program runs (the kernel's out_iter null): the same answer,
    /// no counts.
    #[test]
    fn rows_without_counts_give_the_same_answer(x in matrix_f64(), y in matrix_i64(),
                                                frac in 0.0f64..1.0, smallest: bool,
                                                sorted: bool, b in bisect()) {
        let run = Run { counts: false, ..Run::new(sorted, b) };
        let mode = Mode::from_smallest(smallest);
        check((x.0, x.1, &x.2), (pick_k(x.1, 4, frac), mode), run)?;
        check((y.0, y.1, &y.2), (pick_k(y.1, 4, frac), mode), run)?;
    }

    /// The row-wise entry (`SimTopK`, topk-ref's `RowSelect`: one row per launch) is bisect,
    /// iteration counts included.
    #[test]
    fn the_row_wise_entry_equals_bisect(x in matrix_f64(), y in matrix_i64(),
                                        frac in 0.0f64..1.0, smallest: bool, sorted: bool,
                                        b in bisect()) {
        let opts = Options { mode: Mode::from_smallest(smallest), sorted };
        row_wise(&x.2[..x.1], frac, opts, b)?;
        row_wise(&y.2[..y.1], frac, opts, b)?;
    }
}

/// One row through `SimTopK` and through `Bisect`.
fn row_wise<E: Element>(
    row: &[E],
    frac: f64,
    opts: Options,
    b: Bisect,
) -> Result<(), TestCaseError> {
    let k = pick_k(row.len(), 4, frac);
    let sim = SimTopK::new(b);
    let got = topk_row(E::as_dyn(&sim), row, k, opts).unwrap();
    let want = topk_row(E::as_dyn(&b), row, k, opts).unwrap();
    prop_assert_eq!(&got.indices, &want.indices);
    prop_assert_eq!(bits(&got.values), bits(&want.values));
    prop_assert_eq!(got.stats.iterations, want.stats.iterations);
    prop_assert_eq!(sim.diagnostics_seen(), 0, "{}", sim.summary());
    Ok(())
}

/// Rows built to break the order, each through every k ∈ {0, 1, M−1, M}, both modes, sorted
/// or not, exact, early stopping and a recall target: every NaN sign and payload, ±inf, ±0,
/// subnormals, ±f64::MAX (overflowing midpoints), adjacent values (a stalled value phase),
/// i64's extremes, and rows of one value.
#[test]
fn hostile_rows_equal_bisect_for_every_edge_k() {
    let nan = |b: u64| f64::from_bits(b);
    let tiny = f64::from_bits(1);
    let one_up = f64::from_bits(1.0f64.to_bits() + 1);
    let floats: Vec<Vec<f64>> = vec![
        vec![f64::NAN, nan(0xfff8_0000_0000_0001), nan(0x7ff0_0000_dead_beef), 1.0, -0.0, 0.0],
        vec![f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, f64::INFINITY, 2.0, -tiny, tiny],
        vec![f64::MAX, -f64::MAX, f64::MAX * 0.75, 1e-300, -1e-300, 3.0, f64::MIN_POSITIVE],
        (0..40).map(|i| if i % 2 == 0 { 1.0 } else { one_up }).collect(),
        (0..70).map(|i| if i % 3 == 0 { -0.0 } else { 0.0 }).collect(),
        vec![nan(0xfff0_0000_0000_0042); 33],
        (0..97).map(|i| [f64::INFINITY, f64::NEG_INFINITY, 5.0][i % 3]).collect(),
    ];
    let ints: Vec<Vec<i64>> = vec![
        vec![i64::MIN, i64::MAX, 0, -1, 1, i64::MIN + 1, i64::MAX - 1],
        vec![i64::MIN; 45],
        (0..100).map(|i| [i64::MAX, i64::MIN, 7][i % 3]).collect(),
        (0..65).map(|i| i64::MAX - (i % 4)).collect(),
    ];
    let configs = [Bisect::exact(), Bisect::early_stopping(7), Bisect::with_recall(0.6).unwrap()];
    for b in configs {
        for (smallest, sorted) in [(false, false), (true, false), (false, true), (true, true)] {
            let mode = Mode::from_smallest(smallest);
            for row in &floats {
                edge_ks(row, mode, Run::new(sorted, b));
            }
            for row in &ints {
                edge_ks(row, mode, Run::new(sorted, b));
            }
        }
    }
}

/// One row (as a matrix of three copies: a block of 4 warps, one idle) at k = 0, 1, M−1, M.
fn edge_ks<E: Element>(row: &[E], mode: Mode, run: Run) {
    let m = row.len();
    let x: Vec<E> = row.iter().chain(row).chain(row).copied().collect();
    for k in [0, 1, m - 1, m] {
        if let Err(e) = check((3, m, &x), (k, mode), run) {
            panic!("{} M={m} k={k} {mode:?} {run:?}: {e}", E::NAME);
        }
    }
}

/// Each width of the wide rows (8, 16, 24 and 32 keys per lane) at its edges: the narrowest
/// unit that holds the row runs it, past 1024 the widest, re-keying the rest.
#[test]
fn every_width_at_its_edges() {
    for m in [32, 255, 256, 257, 512, 513, 768, 769, 1023, 1024, 1025, 1090] {
        let f: Vec<f64> = (0..5 * m).map(|i| ((i * 7919) % 613) as f64 * -0.5 + 3.0).collect();
        let i: Vec<i64> = (0..5 * m).map(|i| ((i as i64 * 15_485_863) % 977 - 488) << 50).collect();
        for (k, smallest, sorted) in [(1, false, true), (m / 3, true, true), (m - 1, false, false)]
        {
            let (mode, run) = (Mode::from_smallest(smallest), Run::new(sorted, Bisect::exact()));
            check((5, m, &f), (k, mode), run).unwrap();
            check((5, m, &i), (k, mode), run).unwrap();
        }
    }
}

/// The sorted output at each edge of the register sort's widths (1, 2, 4 and 8 results a lane:
/// k = 32, 64, 128, 256) and past it (the network in global memory), on rows with ties, ±0
/// and NaN payloads of both signs (re-read from the input where the key does not keep them).
#[test]
fn sorted_output_at_every_register_sort_edge() {
    let m = 300;
    let f: Vec<f64> = (0..2 * m)
        .map(|i| match i % 11 {
            0 => f64::from_bits(0x7ff0_0000_0000_0000 | (i as u64 + 1)),
            1 => f64::from_bits(0xfff8_0000_0000_0000 | i as u64),
            2 => -0.0,
            3 => 0.0,
            _ => ((i * 37) % 23) as f64 - 11.0,
        })
        .collect();
    let i: Vec<i64> = (0..2 * m).map(|i| ((i as i64 * 7919) % 41 - 20) << 40).collect();
    for k in [2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200, 255, 256, 257, 300] {
        for smallest in [false, true] {
            let (mode, run) = (Mode::from_smallest(smallest), Run::new(true, Bisect::exact()));
            check((2, m, &f), (k, mode), run).unwrap_or_else(|e| panic!("f64 k={k}: {e}"));
            check((2, m, &i), (k, mode), run).unwrap_or_else(|e| panic!("i64 k={k}: {e}"));
        }
    }
}

/// Past 1024 elements a row is re-keyed from the input on each pass; rows of ±inf go straight
/// to the key phase, and the coverage says so; a matrix shared out in windows among threads
/// (`launch_parallel`, the door's path) gives the same result as one simulator.
#[test]
fn re_keyed_rows_the_key_phase_and_windows() {
    let (n, m) = (3, 1100);
    let x: Vec<f64> = (0..n * m).map(|i| ((i * 7919) % 1009) as f64 * 0.25 - 100.0).collect();
    let got = check((n, m, &x), (300, Mode::Largest), Run::new(true, Bisect::exact())).unwrap();
    assert!(got.coverage.reached(Branch::WideRows) && got.coverage.reached(Branch::ExitHit));
    let inf: Vec<f64> = (0..4 * 50).map(|i| [f64::INFINITY, f64::NEG_INFINITY][i % 2]).collect();
    let got = check((4, 50, &inf), (10, Mode::Largest), Run::new(false, Bisect::exact())).unwrap();
    assert!(got.coverage.reached(Branch::KeyPhase), "{:?}", got.coverage);
    let (n, m) = (1000, 150);
    let x: Vec<i64> = (0..n * m).map(|i| ((i as i64 * 104_729) % 2003 - 1000) << 40).collect();
    let args =
        KernelArgs { n, m, k: 17, mode: Mode::Smallest, bisect: Bisect::exact(), mutant: None };
    let config = SimConfig { sorted: true, ..SimConfig::default() };
    let whole = Simulator::new(config).run(&x, &args).unwrap();
    let parallel = launch_parallel(&x, &args, config).unwrap();
    assert_eq!((&parallel.indices, &parallel.values), (&whole.indices, &whole.values));
    assert_eq!(parallel.iterations, whole.iterations);
    assert!(whole.diagnostics.is_empty() && parallel.diagnostics.is_empty());
    let run = Run::new(true, Bisect::exact());
    same_as_bisect(&whole, (n, m, &x), (17, Mode::Smallest), run).unwrap();
}

/// What the wide rows do not take is an error, never a panic or a row misread: a forced
/// family (the other families hold 32-bit keys), a trace. (A ragged request runs their ragged
/// twins: `wide/ragged.rs`.)
#[test]
fn what_the_wide_rows_do_not_take_is_an_error() {
    let x = [1.0f64, 2.0, 3.0, 4.0];
    let args =
        KernelArgs { n: 1, m: 4, k: 2, mode: Mode::Largest, bisect: Bisect::exact(), mutant: None };
    for strategy in [Launch::Quarter, Launch::Warp, Launch::Block, Launch::Split] {
        let config = SimConfig { strategy, ..SimConfig::default() };
        let e = Simulator::new(config).run(&x, &args).unwrap_err();
        assert!(
            matches!(e, SimError::InvalidLaunch(_)) && e.to_string().contains("float64"),
            "{e}"
        );
    }
    let lengths = [3u32];
    let rows = RowData { lengths: Some(&lengths), ..RowData::default() };
    let r = Simulator::new(SimConfig::default()).run_ragged(&x, &args, rows).unwrap();
    assert_eq!((r.indices, r.values, r.plan.unit.is_ragged()), (vec![1, 2], vec![2.0, 3.0], true));
    let e = Simulator::new(SimConfig::default()).run_traced(&x, &args, 0).unwrap_err();
    assert!(e.to_string().contains("wide rows"), "{e}");
    // an i64 row: -5 and 9 bracket it, the first key test (at 2) counts 2
    let i = [5i64, -5, 0, 9];
    let r = Simulator::new(SimConfig::default()).run(&i, &args).unwrap();
    assert_eq!((r.indices, r.values, r.iterations), (vec![0, 3], vec![5, 9], vec![1]));
}

/// The kernel's sort, mutated: a comparator that breaks ties by the higher index writes
/// another order than bisect's — and the simulator's sorted-order check says so — and a
/// network without its `__syncwarp()` is a race between the lanes' global accesses, though
/// the in-order answer is right.
#[test]
fn mutated_sorts_are_caught() {
    let (n, m, k) = (2, 300, 60);
    // ties only (60 of each value): the clean network swaps nothing
    let x: Vec<f64> = (0..n * m).map(|i| ((i * 37) % 5) as f64).collect();
    let run =
        Run { mutant: Some(Mutant::WideSortTiesHighIndex), ..Run::new(true, Bisect::exact()) };
    let bad = Simulator::new(run.config()).run(&x, &run.args(n, m, k, Mode::Largest)).unwrap();
    let clean = Run { mutant: None, ..run };
    assert!(same_as_bisect(&bad, (n, m, &x), (k, Mode::Largest), clean).is_err());
    assert!(bad.summary.count(DiagKind::AssertFailed) > 0, "{}", bad.summary);
    let labels: Vec<&str> = bad.diagnostics.iter().map(|d| d.label).collect();
    assert!(labels.contains(&"sort_wide: the results in sorted order"), "{labels:?}");

    // distinct values out of order, k past the register sort (the network in global memory)
    let (m, k) = (600, 300);
    let x: Vec<f64> = (0..n * m).map(|i| ((i * 37) % 1009) as f64).collect();
    let run = Run { mutant: Some(Mutant::WideSortMissingSyncwarp), ..clean };
    let racy = Simulator::new(run.config()).run(&x, &run.args(n, m, k, Mode::Largest)).unwrap();
    same_as_bisect(&racy, (n, m, &x), (k, Mode::Largest), clean).unwrap();
    assert!(racy.summary.count(DiagKind::GlobalRace) > 0, "{}", racy.summary);
}
