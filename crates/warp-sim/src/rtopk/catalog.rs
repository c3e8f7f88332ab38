//! The seeded-bug catalog: every [`Mutant`] of the RTop-K kernel run over a fixed suite that
//! reaches every launch family, and how the simulator catches each.
//!
//! A mutant is *caught by a diagnostic* when a launch reports a finding (in order, or as an
//! order dependence under seeded schedules), and *by the oracle* when its output (indices,
//! value bits or iteration counts) differs from topk-ref's `Bisect` on some case. The suite:
//! quarter-, half- and whole-warp rows (narrowing and not, 16-byte loads, idle lanes), rows of
//! 48 keys per lane, block rows (narrowing, and past their registers into shared memory and
//! re-keying), both sorts, early stopping, both modes, a partial last block, split rows (full
//! and last chunks, the gather, the sort of the candidates' top k), and a grid of 2^32
//! elements and more of which one block is simulated, 16-bit rows (f16 and bf16: packed
//! quarter- and whole-warp rows, 16-byte loads of eight, narrowing, block rows, split rows),
//! integer rows, 64-bit rows (f64 and i64: wide rows held in registers and re-keyed past
//! them, sorted by the kernel, early stopping), and radix selects (rows of three blocks, f32
//! and bf16, sorted; candidates kept, read and written from, and too many to keep). Inputs mix ±0, NaN of both signs with payloads,
//! ±inf, subnormals, ±FLT_MAX (each type's largest) and ties with ordinary numbers.

use std::fmt::Write as _;

use rayon::prelude::*;

use topk_ref::order::Mode;
use topk_ref::{Bisect, Element, KeyBits, Options, bf16, f16, topk_row};

use crate::engine::diag::{DiagKind, DiagPolicy, Diagnostic};
use crate::engine::global::VirtualSource;
use crate::engine::schedule::{Schedule, ScheduleRng};
use crate::engine::summary::DiagSummary;
use crate::rtopk::args::KernelArgs;
use crate::rtopk::launch::{LaunchResult, SimConfig, Simulator, order_diffs};
use crate::rtopk::mutant::Mutant;
use crate::rtopk::order::ElemType;
use crate::rtopk::plan::Strategy;

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
    /// The first diagnostic that is not benign (order dependence last), if any.
    pub first_diagnostic: Option<Diagnostic>,
    /// The first disagreement with the reference (or the launch error).
    pub first_mismatch: Option<String>,
    /// Diagnostics over all cases.
    pub diagnostics_total: u64,
    /// All findings by kind.
    pub summary: DiagSummary,
}

/// Values of a case's rows.
#[derive(Clone, Copy, Debug)]
enum Data {
    /// Uniform numbers in [-4, 4).
    Numbers,
    /// The integers 0 to 8 and ±0: ties, and thresholds that land on elements.
    Ties,
    /// Numbers laced with ±0, NaN of both signs with payloads, ±inf, subnormals, ±FLT_MAX
    /// and a tie pool.
    Hostile,
    /// Numbers of both signs over the binades 2^-30 .. 2^30, sparsely laced with what
    /// [`Data::Hostile`] holds: a radix select's first digits hold few of them each, so that
    /// the second pass keeps the candidates of a k of up to about m / 100.
    Binades,
}

/// One shape of the suite.
struct Case {
    n: usize,
    m: usize,
    k: usize,
    mode: Mode,
    bisect: Bisect,
    strategy: Strategy,
    sorted: bool,
    data: Data,
    elem: ElemType,
}

fn suite() -> Vec<Case> {
    use Data::*;
    use Strategy::*;
    let (l, s) = (Mode::Largest, Mode::Smallest);
    let exact = Bisect::exact();
    let c = |n, m, k, mode, bisect, strategy, sorted, data| Case {
        n,
        m,
        k,
        mode,
        bisect,
        strategy,
        sorted,
        data,
        elem: ElemType::F32,
    };
    let (f16, bf16) = (ElemType::F16, ElemType::Bf16);
    let c16 = |elem, n, m, k, mode, strategy, sorted, data| Case {
        elem,
        ..c(n, m, k, mode, exact, strategy, sorted, data)
    };
    vec![
        c(48, 30, 6, l, exact, Quarter, false, Hostile),
        c(16, 256, 200, s, exact, Quarter, false, Ties), // the stage in 4 chunks per row
        c(40, 5, 2, s, exact, Quarter, true, Hostile),   // idle lanes, warp sort
        c(20, 100, 10, s, exact, Half, false, Ties),
        c(20, 62, 8, l, exact, Half, true, Hostile), // 4 keys per lane, M % 4 != 0
        c(20, 64, 8, l, exact, Half, false, Numbers), // 16-byte loads
        c(17, 77, 7, l, Bisect::early_stopping(6), Half, false, Numbers),
        c(9, 200, 40, l, exact, Warp, true, Hostile),
        c(9, 300, 20, l, exact, Auto, false, Numbers), // narrows (12 keys per lane)
        c(9, 700, 60, s, exact, Auto, false, Ties),
        c(5, 1500, 100, l, exact, Auto, false, Hostile), // 48 keys per lane
        c(2, 3100, 100, l, exact, Auto, false, Numbers), // block rows that narrow
        c(2, 2100, 300, s, exact, Auto, true, Hostile),  // block rows, warp sort
        c(9, 2100, 1100, l, exact, Auto, true, Numbers), // block sort in shared memory
        c(2, 2100, 1100, s, exact, Auto, true, Hostile), // the rank sort: clusters of 16 blocks
        c(1, 8300, 4150, l, exact, Auto, true, Hostile), // the merge sort: runs on 4 blocks
        c(1, 35_000, 300, l, exact, Block, false, Numbers), // past the registers: 3 chunks
        c(2, 4500, 250, l, exact, Split, true, Hostile), // split rows: 2 chunks + a last, gather
        c(1, 16_400, 200, l, exact, Auto, true, Hostile), // a cluster row of 3 blocks, sorted
        c16(f16, 24, 45, 6, s, Quarter, false, Hostile), // packed quarter rows, NaN in smallest
        c16(bf16, 9, 256, 30, l, Warp, true, Hostile),   // 16-byte loads of eight, warp sort
        c16(f16, 9, 252, 20, s, Warp, false, Numbers),   // 2-byte loads (M % 8 != 0)
        c16(bf16, 9, 300, 20, l, Auto, false, Numbers),  // narrows (12 elements per lane)
        c16(f16, 2, 3100, 100, s, Auto, false, Hostile), // block rows that narrow
        c16(bf16, 1, 4500, 200, s, Split, true, Ties),   // split rows of bf16
        c16(ElemType::I32, 40, 30, 6, l, Quarter, false, Hostile), // int extremes, ties
        c16(ElemType::I8, 20, 100, 10, s, Half, true, Ties), // 16-byte loads of 16
        c16(ElemType::U8, 9, 300, 20, l, Auto, false, Hostile), // narrows
        c16(ElemType::I16, 2, 3100, 100, s, Auto, false, Hostile), // block rows that narrow
        c16(ElemType::I32, 1, 4500, 200, l, Split, true, Numbers), // split rows of i32
        c16(ElemType::F64, 9, 300, 40, l, Auto, true, Hostile), // wide rows, re-keyed past 256
        c16(ElemType::I64, 5, 100, 30, s, Auto, true, Ties), // wide rows of i64, sorted
        c16(ElemType::I64, 2, 600, 300, l, Auto, true, Numbers), // sorted in global memory
        Case {
            elem: ElemType::F64,
            ..c(6, 70, 9, s, Bisect::early_stopping(5), Auto, false, Ties)
        },
        c(2, 9000, 3000, l, exact, Radix, false, Hostile), // radix rows of three blocks
        c(2, 9000, 60, l, exact, Radix, false, Binades),   // the candidates kept, written from
        c(1, 9000, 90, s, exact, Radix, true, Binades),    // the same, sorted
        c16(bf16, 1, 9001, 500, s, Radix, true, Ties),     // 16-bit radix rows, sorted
    ]
}

/// Grids of 2^32 elements and more, the last block of each simulated: `(N, M, k, sorted)` —
/// whole-warp rows selecting every element (so that `row_id * k` passes 2^32 too) with the
/// warp sort, and block rows that narrow.
const HUGE: [(usize, usize, usize, bool); 2] =
    [((1 << 23) + 8, 520, 520, true), ((1 << 20) + 1, 4096, 100, false)];
/// Element `i` of the huge grid: hostile values made from the address.
fn huge_value(i: u64) -> f32 {
    let mut rng = ScheduleRng::new(i);
    hostile(&mut rng)
}

fn hostile(rng: &mut ScheduleRng) -> f32 {
    let r = rng.next_u64();
    match r % 40 {
        0 => f32::from_bits(0x7fc0_0000),
        1 => f32::from_bits(0xffc0_0000),
        2 => f32::from_bits(0x7f80_0000 | (r >> 40) as u32 & 0x3f_ffff | 1),
        3 => f32::from_bits(0xff80_0000 | (r >> 40) as u32 & 0x3f_ffff | 1),
        4 => f32::INFINITY,
        5 => f32::NEG_INFINITY,
        6..=8 => 0.0,
        9..=11 => -0.0,
        12 => f32::from_bits((r >> 41) as u32 & 0x7f_ffff | 1),
        13 => -f32::from_bits((r >> 41) as u32 & 0x7f_ffff | 1),
        14 => f32::MAX,
        15 => -f32::MAX,
        16..=21 => [1.5f32, -2.25, 7.0][(r >> 50) as usize % 3],
        _ => ((r >> 40) as f32 / (1u64 << 24) as f32) * 8.0 - 4.0,
    }
}

/// The bits of a hostile 16-bit element (`inf`: the type's +inf bits): NaN of either sign
/// with any payload, ±inf, ±0, subnormals, ±largest, a tie pool, numbers.
fn hostile16(rng: &mut ScheduleRng, inf: u16) -> u16 {
    let r = rng.next_u64();
    let sign = if r >> 63 == 1 { 0x8000 } else { 0 };
    let mantissa = !inf & 0x7fff;
    match r % 40 {
        0..=3 => sign | inf | ((r >> 20) as u16 & mantissa).max(1),
        4 | 5 => sign | inf,
        6..=11 => sign,
        12 | 13 => sign | ((r >> 20) as u16 & mantissa).max(1),
        14 | 15 => sign | (inf - 1),
        16..=21 => [0x3fc0u16, 0xc010, 0x40e0][(r >> 50) as usize % 3], // bf16 1.5, -2.25, 7
        _ => (r >> 24) as u16 & 0xbfff, // numbers below 2 in magnitude
    }
}

/// Seeded 16-bit test data of `data`'s kind, of `E`.
fn case_data16<E: Element>(n: usize, m: usize, data: Data, seed: u64) -> Vec<E> {
    let inf = if E::NAME == "bf16" { 0x7f80 } else { 0x7c00 };
    match data {
        Data::Hostile => {
            let mut rng = ScheduleRng::new(seed);
            (0..n * m)
                .map(|_| E::from_bits(E::Key::from_u32(hostile16(&mut rng, inf).into())))
                .collect()
        }
        _ => case_data(n, m, data, seed).into_iter().map(E::from_f32).collect(),
    }
}

/// The bits of a hostile integer of `bits` bits (`signed`: two's complement): its least and
/// greatest value, zero, -1 (all ones), a tie pool, numbers of every magnitude.
fn hostile_int(rng: &mut ScheduleRng, bits: u32, signed: bool) -> u32 {
    let mask = if bits == 32 { u32::MAX } else { (1 << bits) - 1 };
    let (min, max) = if signed { (1 << (bits - 1), mask >> 1) } else { (0, mask) };
    let r = rng.next_u64();
    let pattern = match r % 20 {
        0 | 1 => min,
        2 | 3 => max,
        4 | 5 => 0,
        6 | 7 => u32::MAX,
        8..=13 => [1u32, 2, 3][(r >> 50) as usize % 3],
        _ => (r >> 20) as u32 >> (r >> 59),
    };
    pattern & mask
}

/// Seeded integer test data of `data`'s kind, of `E`: hostile integers, a few values tied
/// many times, or numbers spread over the type's range.
fn case_data_int<E: Element>(n: usize, m: usize, data: Data, seed: u64) -> Vec<E> {
    let bits = 8 * std::mem::size_of::<E>() as u32;
    let signed = E::NAME.starts_with('i');
    let mut rng = ScheduleRng::new(seed);
    let mask = if bits == 32 { u32::MAX } else { (1 << bits) - 1 };
    (0..n * m)
        .map(|_| {
            let b = match data {
                Data::Hostile => hostile_int(&mut rng, bits, signed),
                Data::Ties => (rng.next_u64() % 5) as u32,
                Data::Numbers => (rng.next_u64() >> 16) as u32 & mask,
                Data::Binades => {
                    let r = rng.next_u64();
                    (r >> 16) as u32 >> (r >> 59) & mask
                }
            };
            E::from_bits(E::Key::from_u32(b))
        })
        .collect()
}

/// The bits of a hostile f64: NaN of either sign with any payload, ±inf, ±0, subnormals,
/// ±largest, a tie pool, numbers.
fn hostile64(rng: &mut ScheduleRng) -> u64 {
    const INF: u64 = 0x7ff0_0000_0000_0000;
    let r = rng.next_u64();
    let (sign, mantissa) = (r & 1 << 63, (r >> 11) & 0xf_ffff_ffff_ffff);
    match r % 40 {
        0..=3 => sign | INF | mantissa.max(1),
        4 | 5 => sign | INF,
        6..=11 => sign,
        12 | 13 => sign | mantissa.max(1),
        14 | 15 => sign | (INF - 1),
        16..=21 => [1.5f64, -2.25, 7.0][(r >> 50) as usize % 3].to_bits(),
        _ => (((r >> 11) as f64 / (1u64 << 53) as f64) * 8.0 - 4.0).to_bits(),
    }
}

/// The bits of a hostile i64: its least and greatest value, zero, -1, a tie pool, numbers of
/// every magnitude.
fn hostile_i64(rng: &mut ScheduleRng) -> u64 {
    let r = rng.next_u64();
    let v = match r % 20 {
        0 | 1 => i64::MIN,
        2 | 3 => i64::MAX,
        4 | 5 => 0,
        6 | 7 => -1,
        8..=13 => [1i64, 2, 3][(r >> 50) as usize % 3],
        _ => (r as i64) >> (r >> 58),
    };
    v as u64
}

/// Seeded 64-bit test data of `data`'s kind, of `E` (f64 or i64).
fn case_data64<E: Element>(n: usize, m: usize, data: Data, seed: u64) -> Vec<E> {
    let float = E::NAME == "f64";
    let mut rng = ScheduleRng::new(seed);
    (0..n * m)
        .map(|_| {
            let b = match (data, float) {
                (Data::Hostile, true) => hostile64(&mut rng),
                (Data::Hostile, false) => hostile_i64(&mut rng),
                (Data::Ties, true) => ((rng.next_u64() % 5) as f64).to_bits(),
                (Data::Ties, false) => rng.next_u64() % 5,
                (Data::Numbers, true) => ((rng.next_u64() >> 11) as f64 - 1e15).to_bits(),
                (Data::Numbers, false) => rng.next_u64() >> 8,
                (Data::Binades, true) => f64::from(binades(&mut rng)).to_bits(),
                (Data::Binades, false) => {
                    let r = rng.next_u64();
                    ((r as i64) >> (r >> 58)) as u64
                }
            };
            E::from_bits(E::Key::from_u64(b))
        })
        .collect()
}

/// [`run_case`] on seeded integer data of `E`.
fn run_int_case<E: Element>(
    mutant: Option<Mutant>,
    case: &Case,
    ci: usize,
    seed: u64,
    t: &mut Tally,
) {
    let x = case_data_int::<E>(case.n, case.m, case.data, seed);
    run_case(mutant, case, ci, &x, t)
}

/// Seeded test data of `data`'s kind.
fn case_data(n: usize, m: usize, data: Data, seed: u64) -> Vec<f32> {
    let mut rng = ScheduleRng::new(seed);
    (0..n * m)
        .map(|_| match data {
            Data::Numbers => ((rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32) * 8.0 - 4.0,
            Data::Ties => match rng.next_u64() % 11 {
                9 => 0.0,
                10 => -0.0,
                v => v as f32,
            },
            Data::Hostile => hostile(&mut rng),
            Data::Binades => binades(&mut rng),
        })
        .collect()
}

/// A [`Data::Binades`] element: one in ten a hostile one (a tenth of them specials), the rest
/// magnitudes evenly over the binades 2^-30 .. 2^30, of either sign.
fn binades(rng: &mut ScheduleRng) -> f32 {
    let r = rng.next_u64();
    if r % 10 == 0 {
        return hostile(rng);
    }
    let magnitude = (((r >> 40) as f64 / (1u64 << 24) as f64) * 60.0 - 30.0).exp2() as f32;
    if r >> 63 == 1 { -magnitude } else { magnitude }
}

/// What one mutant's run over the suite gathered.
struct Tally {
    summary: DiagSummary,
    first: Option<Diagnostic>,
    order: Option<Diagnostic>,
    mismatch: Option<String>,
    errored: bool,
}

impl Tally {
    fn diagnostics<E>(&mut self, r: &LaunchResult<E>) {
        self.summary.merge(&r.summary);
        if self.first.is_none() {
            self.first = r.diagnostics.iter().find(|d| !d.kind.is_benign()).cloned();
        }
    }
}

/// Runs `mutant` (or the clean kernel) over the suite.
pub fn evaluate(mutant: Option<Mutant>) -> MutantReport {
    let mut t = Tally {
        summary: DiagSummary::new(),
        first: None,
        order: None,
        mismatch: None,
        errored: false,
    };
    for (ci, case) in suite().iter().enumerate() {
        let seed = 1000 + ci as u64;
        match case.elem {
            ElemType::F32 => {
                run_case(mutant, case, ci, &case_data(case.n, case.m, case.data, seed), &mut t)
            }
            ElemType::F16 => run_case(
                mutant,
                case,
                ci,
                &case_data16::<f16>(case.n, case.m, case.data, seed),
                &mut t,
            ),
            ElemType::Bf16 => {
                let x = case_data16::<bf16>(case.n, case.m, case.data, seed);
                run_case(mutant, case, ci, &x, &mut t)
            }
            ElemType::I8 => run_int_case::<i8>(mutant, case, ci, seed, &mut t),
            ElemType::U8 => run_int_case::<u8>(mutant, case, ci, seed, &mut t),
            ElemType::I16 => run_int_case::<i16>(mutant, case, ci, seed, &mut t),
            ElemType::I32 => run_int_case::<i32>(mutant, case, ci, seed, &mut t),
            ElemType::F64 => {
                let x = case_data64::<f64>(case.n, case.m, case.data, seed);
                run_case(mutant, case, ci, &x, &mut t)
            }
            ElemType::I64 => {
                let x = case_data64::<i64>(case.n, case.m, case.data, seed);
                run_case(mutant, case, ci, &x, &mut t)
            }
        }
    }
    huge_grid(mutant, &mut t);
    let diagnosed = t.first.is_some() || t.order.is_some();
    let caught = match (diagnosed, t.mismatch.is_some()) {
        _ if t.errored => Caught::Error,
        (true, true) => Caught::Both,
        (true, false) => Caught::Diagnostic,
        (false, true) => Caught::Oracle,
        (false, false) => Caught::NotCaught,
    };
    MutantReport {
        mutant,
        caught,
        first_diagnostic: t.first.or(t.order),
        first_mismatch: t.mismatch,
        diagnostics_total: t.summary.total(),
        summary: t.summary,
    }
}

/// Runs one case of the suite on `x`: in order (compared with topk-ref's `Bisect`), then under
/// two seeded schedules (compared with the in-order run).
fn run_case<E: Element>(mutant: Option<Mutant>, case: &Case, ci: usize, x: &[E], t: &mut Tally) {
    let args = KernelArgs {
        n: case.n,
        m: case.m,
        k: case.k,
        mode: case.mode,
        bisect: case.bisect,
        mutant,
    };
    let config = SimConfig {
        policy: DiagPolicy::Collect,
        schedule: Schedule::InOrder,
        strategy: case.strategy,
        sorted: case.sorted,
        ..SimConfig::default()
    };
    let base = match Simulator::new(config).run(x, &args) {
        Ok(r) => r,
        Err(e) => {
            t.errored = true;
            t.mismatch.get_or_insert(format!("case {ci}: {e}"));
            return;
        }
    };
    t.diagnostics(&base);
    if t.mismatch.is_none() {
        t.mismatch = compare(x, &args, case.sorted, &base, ci);
    }
    for seed in [1, 2] {
        let shuffled = SimConfig { schedule: Schedule::Shuffled { seed }, ..config };
        if let Ok(other) = Simulator::new(shuffled).run(x, &args) {
            t.summary.merge(&other.summary);
            for d in order_diffs(&base, &other, args.k.max(1)) {
                t.summary.add(&d);
                t.order.get_or_insert(d);
            }
        }
    }
}

/// The last block of grids of more than 2^32 elements, their input made from addresses.
fn huge_grid(mutant: Option<Mutant>, t: &mut Tally) {
    for (n, m, k, sorted) in HUGE {
        let args = KernelArgs { n, m, k, mode: Mode::Largest, bisect: Bisect::exact(), mutant };
        let src = VirtualSource::new((n * m) as u64, m as u64, huge_value);
        let config = SimConfig { sorted, ..SimConfig::default() };
        let mut sim = Simulator::new(config);
        let last = match sim.plan(&args) {
            Ok(p) => (n as u64 - 1) / rows_of_block(&p) * rows_of_block(&p),
            Err(e) => {
                t.errored = true;
                t.mismatch.get_or_insert(format!("grid of 2^32+: {e}"));
                continue;
            }
        };
        let rows = last..n as u64;
        match sim.run_rows(&src, &args, rows.clone()) {
            Ok(r) => {
                t.diagnostics(&r);
                if t.mismatch.is_none() {
                    t.mismatch = compare_huge(&args, sorted, &r, rows);
                }
            }
            Err(e) => {
                t.errored = true;
                t.mismatch.get_or_insert(format!("grid of 2^32+ elements: {e}"));
            }
        }
    }
}

/// Rows per block of a plan's top-k launch.
fn rows_of_block(p: &crate::rtopk::plan::Plan) -> u64 {
    match p.row_lanes() {
        Some(lanes) => u64::from(p.block) / lanes as u64,
        None => 1,
    }
}

/// The first row of a huge grid's launch that differs from topk-ref's `Bisect`.
fn compare_huge(
    args: &KernelArgs,
    sorted: bool,
    r: &LaunchResult,
    rows: std::ops::Range<u64>,
) -> Option<String> {
    let (m, k) = (args.m, args.k);
    for (i, row) in rows.enumerate() {
        let x: Vec<f32> = (0..m as u64).map(|j| huge_value(row * m as u64 + j)).collect();
        let opts = Options { mode: args.mode, sorted };
        let want = match topk_row(&args.bisect, &x, k, opts) {
            Ok(w) => w,
            Err(e) => return Some(format!("grid of 2^32+: reference failed: {e}")),
        };
        if r.indices[i * k..(i + 1) * k] != want.indices[..] {
            return Some(format!(
                "grid of 2^32+ elements ({}), row {row}: indices differ",
                r.plan.unit
            ));
        }
    }
    None
}

/// The first row where the launch differs from topk-ref's `Bisect`, described.
fn compare<E: Element>(
    x: &[E],
    args: &KernelArgs,
    sorted: bool,
    result: &LaunchResult<E>,
    case: usize,
) -> Option<String> {
    for r in 0..args.n {
        let row = &x[r * args.m..(r + 1) * args.m];
        let opts = Options { mode: args.mode, sorted };
        let want = match topk_row(E::as_dyn(&args.bisect), row, args.k, opts) {
            Ok(w) => w,
            Err(e) => return Some(format!("case {case}: reference failed: {e}")),
        };
        let got_idx = &result.indices[r * args.k..(r + 1) * args.k];
        let got_val = &result.values[r * args.k..(r + 1) * args.k];
        let what =
            format!("case {case} ({}, M={}, k={}) row {r}", result.plan.unit, args.m, args.k);
        if got_idx != want.indices.as_slice() {
            let head = |v: &[u32]| v.iter().take(6).copied().collect::<Vec<_>>();
            return Some(format!(
                "{what}: indices {:?} != {:?}",
                head(got_idx),
                head(&want.indices)
            ));
        }
        if got_val.iter().zip(&want.values).any(|(a, b)| a.to_bits() != b.to_bits()) {
            return Some(format!("{what}: value bits differ"));
        }
        let want_it = want.stats.iterations.unwrap_or(0);
        // a split row and a radix select have no iteration count (`Route::counts`)
        if result.route.counts() && result.iterations[r] != want_it {
            return Some(format!("{what}: {} iterations != {want_it}", result.iterations[r]));
        }
    }
    None
}

/// The whole catalog: the clean kernel first, then every mutant. Each entry is its own
/// simulation and a pure function of its mutant, so they run side by side (rayon keeps the
/// order of the collected reports).
pub fn catalog() -> Vec<MutantReport> {
    let entries: Vec<Option<Mutant>> =
        std::iter::once(None).chain(Mutant::ALL.into_iter().map(Some)).collect();
    entries.into_par_iter().map(evaluate).collect()
}

/// The catalog as a text table: mutant, families, how caught, the kinds found, and the
/// first finding (or disagreement).
pub fn render_table(reports: &[MutantReport]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{:<30} {:<26} {:<20} first finding", "mutant", "families", "caught by");
    let _ = writeln!(s, "{:-<30} {:-<26} {:-<20} {:-<60}", "", "", "", "");
    for r in reports {
        let name = r.mutant.map_or("(none: docs/kernel.md)", Mutant::name);
        let families = r.mutant.map_or("all", Mutant::families);
        let caught = match (r.mutant, r.caught) {
            (Some(m), Caught::NotCaught) if m.is_equivalent() => "not caught (equiv.)",
            (None, Caught::NotCaught) => "clean",
            (_, c) => c.name(),
        };
        let finding = match (&r.first_diagnostic, &r.first_mismatch) {
            (Some(d), _) => d.to_string(),
            (None, Some(m)) => m.clone(),
            (None, None) if r.mutant.is_some_and(Mutant::is_equivalent) => {
                "equivalent mutant: nothing reuses the stage after its last chunk".to_string()
            }
            (None, None) => "-".to_string(),
        };
        let _ = writeln!(s, "{name:<30} {families:<26} {caught:<20} {finding}");
    }
    s
}

/// The kinds each report found, for a table: `kind` names joined by `, `.
pub fn kinds_found(r: &MutantReport) -> String {
    let kinds: Vec<&str> = r.summary.kinds().iter().map(|k| k.kind.name()).collect();
    if kinds.is_empty() { "-".to_string() } else { kinds.join(", ") }
}

/// `true` when `kind` is among a report's findings.
pub fn found(r: &MutantReport, kind: DiagKind) -> bool {
    r.summary.count(kind) > 0
}
