//! The seeded-bug catalog: realistic mistakes in the RTop-K kernel, switched on inside the one
//! kernel ([`crate::kernel`]), and how the simulator catches each of them.
//!
//! A mutant is *caught* when a launch reports a diagnostic, or when its output (indices,
//! value bits or iteration counts) differs from topk-ref's `Bisect` on some case of a fixed
//! suite of shapes (M below, at and above 32, not multiples of 32; both modes; exact and
//! early stopping; several warps per block with a partial last block; rows that narrow to
//! their candidates).

use std::fmt::Write as _;

use topk_ref::order::Mode;
use topk_ref::{Bisect, Options, topk_row};

use crate::diag::{DiagPolicy, Diagnostic};
use crate::kernel::KernelArgs;
use crate::launch::{SimConfig, check_order_dependence, launch_rtopk};
use crate::memory::ScheduleRng;
use crate::warp::Schedule;

/// A seeded bug of the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mutant {
    /// No `__syncwarp()` between the load and the search. *Equivalent in this design*: each
    /// lane only ever reads the `s_keys[i]` it wrote itself, so no other lane needs the barrier.
    MissingSyncwarpAfterLoad,
    /// The selection ballots pass a mask naming only the lanes that hold an element, while
    /// every lane calls them.
    BallotPartialMask,
    /// Lanes without an element (`lane >= M`, M < 32) return at the start; the reductions
    /// then read lanes past the partial warp.
    IdleLanesExitEarly,
    /// In the last, partial chunk, lanes past M return before the ballots.
    EarlyExitBeforeBallot,
    /// The output position uses `(1 << (lane + 1)) - 1`: a shift by 32 in lane 31.
    PrefixMaskShift32,
    /// Off by one when cutting the band at `band_left` (`band_rank <= band_left`).
    CutOffByOne,
    /// The output slot uses the input's row stride: `row * M + pos` instead of `row * k + pos`.
    OutputStrideM,
    /// The load loop runs to M rounded up to 32: reads past the row.
    LoadPastM,
    /// The selection runs to M rounded up to 32: reads `s_keys` past the row.
    SelectPastM,
    /// `count_ge` sums through a shared counter with a plain `+=` and no barrier.
    SharedCounterNoBarrier,
    /// The butterfly uses offsets 32, 16, 8, 4, 2 instead of 16, 8, 4, 2, 1.
    WrongShuffleOffset,
    /// A `shfl_down` tree leaves the result in lane 0, but lane 31 is broadcast.
    BroadcastFromWrongLane,
    /// `count_ge` counts `key > t` instead of `key >= t`.
    CountGreaterThan,
    /// No `__syncwarp()` between `narrow_row`'s stores and the first count that reads the
    /// candidates: lanes read candidates that other lanes wrote.
    MissingSyncwarpAfterNarrow,
}

impl Mutant {
    /// Every mutant, in catalog order.
    pub const ALL: [Mutant; 14] = [
        Mutant::MissingSyncwarpAfterLoad,
        Mutant::BallotPartialMask,
        Mutant::IdleLanesExitEarly,
        Mutant::EarlyExitBeforeBallot,
        Mutant::PrefixMaskShift32,
        Mutant::CutOffByOne,
        Mutant::OutputStrideM,
        Mutant::LoadPastM,
        Mutant::SelectPastM,
        Mutant::SharedCounterNoBarrier,
        Mutant::WrongShuffleOffset,
        Mutant::BroadcastFromWrongLane,
        Mutant::CountGreaterThan,
        Mutant::MissingSyncwarpAfterNarrow,
    ];

    /// A short kebab-case name.
    pub fn name(self) -> &'static str {
        match self {
            Mutant::MissingSyncwarpAfterLoad => "missing-syncwarp-after-load",
            Mutant::BallotPartialMask => "ballot-partial-mask",
            Mutant::IdleLanesExitEarly => "idle-lanes-exit-early",
            Mutant::EarlyExitBeforeBallot => "early-exit-before-ballot",
            Mutant::PrefixMaskShift32 => "prefix-mask-shift-32",
            Mutant::CutOffByOne => "cut-off-by-one",
            Mutant::OutputStrideM => "output-stride-m",
            Mutant::LoadPastM => "load-past-m",
            Mutant::SelectPastM => "select-past-m",
            Mutant::SharedCounterNoBarrier => "shared-counter-no-barrier",
            Mutant::WrongShuffleOffset => "wrong-shuffle-offset",
            Mutant::BroadcastFromWrongLane => "broadcast-from-wrong-lane",
            Mutant::CountGreaterThan => "count-greater-than",
            Mutant::MissingSyncwarpAfterNarrow => "missing-syncwarp-after-narrow",
        }
    }

    /// `true` for a mutant that cannot change any execution of this kernel (so it must *not*
    /// be reported — the simulator has no false positive on it).
    pub fn is_equivalent(self) -> bool {
        self == Mutant::MissingSyncwarpAfterLoad
    }
}

/// How a mutant was caught.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caught {
    /// Only by a diagnostic (the output was right).
    Diagnostic,
    /// Only by comparing with the CPU reference.
    Oracle,
    /// By both.
    Both,
    /// The launch stopped with an error (the watchdog).
    Error,
    /// Not caught.
    NotCaught,
}

impl Caught {
    /// Table text.
    pub fn name(self) -> &'static str {
        match self {
            Caught::Diagnostic => "diagnostic",
            Caught::Oracle => "oracle",
            Caught::Both => "diagnostic+oracle",
            Caught::Error => "launch error",
            Caught::NotCaught => "not caught",
        }
    }
}

/// What the catalog found for one kernel variant.
#[derive(Clone, Debug, PartialEq)]
pub struct MutantReport {
    /// The mutant (`None` = the kernel of docs/kernel.md).
    pub mutant: Option<Mutant>,
    /// How it was caught.
    pub caught: Caught,
    /// The first diagnostic of the first case that had one.
    pub first_diagnostic: Option<Diagnostic>,
    /// The first disagreement with the reference (or the launch error).
    pub first_mismatch: Option<String>,
    /// Diagnostics over all cases.
    pub diagnostics_total: u64,
}

/// One shape of the suite.
struct Case {
    n: usize,
    m: usize,
    k: usize,
    mode: Mode,
    bisect: Bisect,
    warps: u32,
    ties: bool,
}

fn suite() -> Vec<Case> {
    let c = |n, m, k, mode, bisect, warps, ties| Case { n, m, k, mode, bisect, warps, ties };
    let exact = Bisect::exact();
    vec![
        c(5, 5, 2, Mode::Largest, exact, 2, false),
        c(5, 40, 5, Mode::Largest, exact, 2, false),
        c(4, 77, 10, Mode::Smallest, exact, 3, true),
        c(4, 77, 10, Mode::Largest, exact, 3, true),
        c(3, 256, 32, Mode::Largest, exact, 2, false),
        c(3, 300, 20, Mode::Largest, exact, 2, false), // narrows to its candidates
        c(3, 100, 7, Mode::Largest, Bisect::early_stopping(6), 2, false),
        c(3, 64, 64, Mode::Smallest, exact, 2, false),
    ]
}

/// Seeded test data: uniform values in `[-4, 4)`, or the integers 0 to 8 (ties, and
/// thresholds that land exactly on elements).
fn case_data(case: &Case, seed: u64) -> Vec<f32> {
    let mut rng = ScheduleRng::new(seed);
    (0..case.n * case.m)
        .map(|_| {
            let r = rng.next_u64();
            if case.ties {
                (r % 9) as f32
            } else {
                ((r >> 40) as f32 / (1u64 << 24) as f32) * 8.0 - 4.0
            }
        })
        .collect()
}

/// Runs `mutant` (or the clean kernel) over the suite.
pub fn evaluate(mutant: Option<Mutant>) -> MutantReport {
    let mut report = MutantReport {
        mutant,
        caught: Caught::NotCaught,
        first_diagnostic: None,
        first_mismatch: None,
        diagnostics_total: 0,
    };
    let mut errored = false;
    for (ci, case) in suite().iter().enumerate() {
        let args = KernelArgs {
            n: case.n,
            m: case.m,
            k: case.k,
            mode: case.mode,
            bisect: case.bisect,
            mutant,
        };
        let x = case_data(case, 1000 + ci as u64);
        let config = SimConfig {
            warps_per_block: case.warps,
            policy: DiagPolicy::Collect,
            schedule: Schedule::InOrder,
        };
        let result = match launch_rtopk(&x, &args, config) {
            Ok(r) => r,
            Err(e) => {
                errored = true;
                report.first_mismatch.get_or_insert(format!("case {ci}: {e}"));
                continue;
            }
        };
        report.diagnostics_total += result.diagnostics_total;
        if report.first_diagnostic.is_none() {
            report.first_diagnostic = result.diagnostics.first().cloned();
        }
        if report.first_mismatch.is_none() {
            report.first_mismatch = compare_with_reference(&x, &args, &result, ci);
        }
        if let Ok(order) = check_order_dependence(&x, &args, config, &[1, 2]) {
            report.diagnostics_total += order.len() as u64;
            if report.first_diagnostic.is_none() {
                report.first_diagnostic = order.first().cloned();
            }
        }
    }
    report.caught = match (report.first_diagnostic.is_some(), report.first_mismatch.is_some()) {
        _ if errored => Caught::Error,
        (true, true) => Caught::Both,
        (true, false) => Caught::Diagnostic,
        (false, true) => Caught::Oracle,
        (false, false) => Caught::NotCaught,
    };
    report
}

/// The first row where the launch differs from topk-ref's `Bisect`, described.
fn compare_with_reference(
    x: &[f32],
    args: &KernelArgs,
    result: &crate::launch::LaunchResult,
    case: usize,
) -> Option<String> {
    for r in 0..args.n {
        let row = &x[r * args.m..(r + 1) * args.m];
        let opts = Options { mode: args.mode, sorted: false };
        let want = match topk_row(&args.bisect, row, args.k, opts) {
            Ok(w) => w,
            Err(e) => return Some(format!("case {case}: reference failed: {e}")),
        };
        let got_idx = &result.indices[r * args.k..(r + 1) * args.k];
        let got_val = &result.values[r * args.k..(r + 1) * args.k];
        let want_it = want.stats.iterations.unwrap_or(0);
        if got_idx != want.indices.as_slice() {
            return Some(format!(
                "case {case} (M={}, k={}) row {r}: indices {:?} != {:?}",
                args.m,
                args.k,
                abbreviate(got_idx),
                abbreviate(&want.indices)
            ));
        }
        if got_val.iter().zip(&want.values).any(|(a, b)| a.to_bits() != b.to_bits()) {
            return Some(format!(
                "case {case} (M={}, k={}) row {r}: value bits differ",
                args.m, args.k
            ));
        }
        if result.iterations[r] != want_it {
            return Some(format!(
                "case {case} (M={}, k={}) row {r}: {} iterations != {want_it}",
                args.m, args.k, result.iterations[r]
            ));
        }
    }
    None
}

fn abbreviate(v: &[u32]) -> Vec<u32> {
    v.iter().take(6).copied().collect()
}

/// The whole catalog: the clean kernel first, then every mutant.
pub fn catalog() -> Vec<MutantReport> {
    std::iter::once(None).chain(Mutant::ALL.into_iter().map(Some)).map(evaluate).collect()
}

/// The catalog as a text table: mutant, how caught, first diagnostic (or disagreement).
pub fn render_table(reports: &[MutantReport]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{:<29} {:<20} first finding", "mutant", "caught by");
    let _ = writeln!(s, "{:-<29} {:-<20} {:-<60}", "", "", "");
    for r in reports {
        let name = r.mutant.map_or("(none: docs/kernel.md)", Mutant::name);
        let caught = match (r.mutant, r.caught) {
            (Some(m), Caught::NotCaught) if m.is_equivalent() => "not caught (equiv.)",
            (None, Caught::NotCaught) => "clean",
            (_, c) => c.name(),
        };
        let finding = match (&r.first_diagnostic, &r.first_mismatch) {
            (Some(d), _) => d.to_string(),
            (None, Some(m)) => m.clone(),
            (None, None) if r.mutant.is_some_and(Mutant::is_equivalent) => {
                "equivalent mutant: each lane reads only its own s_keys writes".to_string()
            }
            (None, None) => "-".to_string(),
        };
        let _ = writeln!(s, "{name:<29} {caught:<20} {finding}");
    }
    s
}
