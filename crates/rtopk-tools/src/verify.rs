//! Equivalence of the GPU kernel with CPU references (topk-ref's `bisect`, and any row-wise
//! reference the caller adds) and, family by family, with the warp simulator running the same
//! launch plan (the same kernel for every case, on the GPU's limits): bit-identical values,
//! identical indices and iteration counts, and no simulator finding, over input families
//! chosen to break top-k kernels. Used by the GPU tests and `rtopk verify cuda`.

use std::fmt;

use ndarray::{Array1, Array2};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;
use topk_ref::{Bisect, Element, Mode, Options, RowTopK, TopK, bf16, f16, topk_rows};

use warp_sim::{KernelArgs, SimConfig, launch_parallel};

use rtopk_cuda::plan::{DeviceLimits, Launch, MAX_QUARTER_WARP_ROW, Route, Strategy};
use rtopk_cuda::{CudaError, CudaTopK, DeviceElement, ElemType};

/// Input families: normal, uniform, heavy ties, same leading bits (AIR's radix-adversarial
/// family: the first 20 key bits equal), and NaN (quiet of either sign, signalling, with
/// payloads)/±inf/-0-laced normal rows.
pub const FAMILIES: [&str; 5] = ["normal", "uniform", "ties", "same-leading-bits", "nan-inf"];

/// Row widths of the equivalence check: not multiples of 32, every launch shape (quarter- and
/// half-warp, warp, wide warp of 48…96 keys per lane, block, and the narrowing block kernel at
/// 4096, 5001 and 8192), 64 Ki, and rows wider than the block kernel's registers and shared
/// memory together (re-keyed from the input on each pass), with and without 16-byte loads;
/// 150001: rows past the portable clusters, whose search at k = M / 32 narrows within its
/// blocks in the families without heavy ties or NaN (normal, uniform, same-leading-bits) — on
/// a device that launches wide clusters, `--quick`'s 8 rows take 16 blocks a row (rtopk-plan's
/// `WIDE_CLUSTER`) and count their rounds by warp ballots (docs/kernel.md, "Cluster rows",
/// **Rounds**); the full check's 13 rows, portable clusters of 8.
pub const WIDTHS: [usize; 21] = [
    1, 7, 31, 32, 33, 100, 256, 768, 1000, 1024, 1025, 2047, 3000, 4096, 5001, 8192, 10000, 65536,
    100_000, 131_071, 150_001,
];

/// Split rows (rtopk-plan's `split`, forced with [`Strategy::Split`]; exact search, no
/// iteration counts) as (n, M, k): a last chunk narrower than the others (10000 = 4 x 2048 +
/// 1808), one that joins the chunk before it (8200 = 3 x 2048 + 2056), k at a quarter of the
/// chunk (512 of 2048: a chunk is at most a quarter of the row), rows that are whole chunks
/// (65536), N = 1, several rows, a second stage split again (2^20 with k = 256: 65536
/// candidates, three levels) and chunks of 4096, 8192 and 16384.
pub const SPLIT_CASES: [(usize, usize, usize); 10] = [
    (1, 10_000, 1),
    (3, 10_000, 100),
    (2, 8200, 200),
    (1, 65_536, 256),
    (4, 65_536, 7),
    (5, 9000, 512),
    (2, 100_000, 1000),
    (1, 131_071, 50),
    (1, 1 << 20, 256),
    (16, 40_000, 512),
];

/// Searches checked: exact, early stopping with max_iter 1, 2, 4, 8, and a recall target.
pub const SEARCHES: [Bisect; 6] = [
    Bisect::exact(),
    Bisect::early_stopping(1),
    Bisect::early_stopping(2),
    Bisect::early_stopping(4),
    Bisect::early_stopping(8),
    // a recall target of 0.9 (docs/contract.md §6)
    Bisect { recall: Some(0.9), ..Bisect::exact() },
];

/// One value of `family`.
fn sample(family: &str, rng: &mut StdRng) -> f32 {
    match family {
        "normal" => StandardNormal.sample(rng),
        "uniform" => rng.random::<f32>(),
        "ties" => (rng.random_range(0..6u32) as f32) - 2.0,
        "same-leading-bits" => f32::from_bits(0x3f80_0000 | rng.random_range(0..4096u32)),
        _ => match rng.random_range(0..40u32) {
            0 => f32::NAN,
            1 => f32::from_bits(0xffc0_1234),
            2 => f32::INFINITY,
            3 => f32::NEG_INFINITY,
            4 => -0.0,
            5 => f32::from_bits(0x7f80_0001), // signalling, with a payload
            _ => StandardNormal.sample(rng),
        },
    }
}

/// An `(n, m)` matrix of `family`, reproducible from `seed`.
pub fn matrix(n: usize, m: usize, family: &str, seed: u64) -> Array2<f32> {
    let mut rng = StdRng::seed_from_u64(seed);
    Array2::from_shape_simple_fn((n, m), || sample(family, &mut rng))
}

/// The k values checked for width m: 1, m/32, m/8, m/2, m−1, m (m/32: rows of 4096 to 8192
/// narrow where k < 512, rows of 257 to 1024 where k < 128).
pub fn ks_for(m: usize) -> Vec<usize> {
    let mut ks = vec![1, m / 32, (m / 8).max(1), m / 2, m.saturating_sub(1), m];
    ks.retain(|&k| (1..=m).contains(&k));
    ks.sort_unstable();
    ks.dedup();
    ks
}

/// A named CPU reference: builds the reference algorithm for a search configuration.
pub type Reference<'a> = (&'a str, &'a (dyn Fn(Bisect) -> Box<dyn RowTopK> + Sync));

/// What a run of [`check_all`] covered.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Rows compared (each against every reference).
    pub rows: usize,
    /// (shape, family, k, search, options) cases compared.
    pub cases: usize,
    /// Descriptions of the cases that differed (empty when all agree).
    pub mismatches: Vec<String>,
    /// The comparison with the warp simulator, by launch family (the top-k kernels', then the
    /// sorts').
    pub families: Vec<FamilyCount>,
}

/// The GPU against the warp simulator in one launch family.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FamilyCount {
    /// The family's entry points (`rtopk_half_rows`, `rtopk_sort_warp_rows`, ...) and, for
    /// 16-bit rows, their type (`rtopk_half_rows_bf16`).
    pub family: String,
    /// Cases that ran it.
    pub cases: usize,
    /// Rows of those cases.
    pub rows: usize,
    /// Cases where the simulator differed from the GPU, planned another kernel, or reported a
    /// finding.
    pub mismatches: usize,
}

impl Report {
    fn count(&mut self, family: String, rows: usize, bad: bool) {
        let i = match self.families.iter().position(|f| f.family == family) {
            Some(i) => i,
            None => {
                self.families.push(FamilyCount { family, ..FamilyCount::default() });
                self.families.len() - 1
            }
        };
        let f = &mut self.families[i];
        f.cases += 1;
        f.rows += rows;
        f.mismatches += usize::from(bad);
    }
}

impl fmt::Display for Report {
    /// One line per launch family: cases, rows, and how the simulator compared.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in &self.families {
            let verdict = if c.mismatches == 0 {
                "identical to warp-sim".to_string()
            } else {
                format!("{} case(s) differ from warp-sim", c.mismatches)
            };
            writeln!(f, "  {:<26} {:>6} cases {:>10} rows: {verdict}", c.family, c.cases, c.rows)?;
        }
        Ok(())
    }
}

/// Where a GPU result differs from a reference, if anywhere (the iteration counts where the
/// GPU returned them: split rows have none).
pub fn difference<E: Element>(gpu: &TopK<E>, cpu: &TopK<E>) -> Option<&'static str> {
    let bits = |t: &TopK<E>| t.values.mapv(E::to_bits);
    if gpu.indices != cpu.indices {
        Some("indices")
    } else if gpu.iterations.is_some() && gpu.iterations != cpu.iterations {
        Some("iteration counts")
    } else if bits(gpu) != bits(cpu) {
        Some("value bits")
    } else {
        None
    }
}

/// Compares the GPU with every reference on `widths` × [`FAMILIES`] × [`ks_for`] ×
/// [`SEARCHES`], alternating modes and sorted output, with about `elements_per_case`
/// elements per case, in each of `elems` (16-bit inputs are the f32 inputs rounded to
/// nearest, integer inputs the f32 inputs scaled and saturated (`integers`), f64 and i64
/// inputs those with low bits of their own (`doubles`, `longs`); their references are
/// `bisect` on the same matrix and the simulator). Widths that quarter-warp rows take are
/// checked twice: as the defaults launch them (the checks' row counts are below the 1024 rows
/// per SM quarter-warp rows need, so half-warp rows), and with [`Strategy::Quarter`] forced for
/// every k <= M / 4 (the 32-bit-key types: the 64-bit ones take one kernel, the wide rows,
/// and no forced strategy or split). Every unit
/// the cases launch is built first, in parallel. (`gpu` is `&mut` for the callers written
/// against the earlier signature; nothing in it is changed.)
pub fn check_all(
    gpu: &mut CudaTopK,
    widths: &[usize],
    elements_per_case: usize,
    references: &[Reference<'_>],
    elems: &[ElemType],
) -> Result<Report, CudaError> {
    let cases = cases(widths, elements_per_case, elems);
    let mut units = Vec::new();
    for case in &cases {
        units.extend(case.route(gpu)?.units());
    }
    gpu.prepare(&units)?;
    let mut report = Report::default();
    // One input per width, family and type; its cases run on the GPU one after another, then
    // their CPU references (bisect, the simulator) all at once: one case's rows are often too
    // few to keep every core busy.
    for group in cases.chunk_by(|a, b| (a.wi, a.fi, a.elem) == (b.wi, b.fi, b.elem)) {
        let c = group[0];
        let x = matrix(c.n, c.m, FAMILIES[c.fi], (c.wi * 10 + c.fi) as u64);
        match c.elem {
            ElemType::F32 => check_group(gpu, group, &x, references, &mut report)?,
            ElemType::F16 => check_group(gpu, group, &x.mapv(f16::from_f32), &[], &mut report)?,
            ElemType::Bf16 => check_group(gpu, group, &x.mapv(bf16::from_f32), &[], &mut report)?,
            ElemType::I8 => check_group(gpu, group, &integers::<i8>(&x, 16.0), &[], &mut report)?,
            ElemType::U8 => check_group(gpu, group, &integers::<u8>(&x, 32.0), &[], &mut report)?,
            ElemType::I16 => {
                check_group(gpu, group, &integers::<i16>(&x, 4096.0), &[], &mut report)?
            }
            ElemType::I32 => {
                check_group(gpu, group, &integers::<i32>(&x, 6.7e7), &[], &mut report)?
            }
            ElemType::F64 => check_group(gpu, group, &doubles(&x, c.fi), &[], &mut report)?,
            ElemType::I64 => check_group(gpu, group, &longs(&x), &[], &mut report)?,
        }
    }
    Ok(report)
}

/// An integer input from a family's f32 input: each value times `scale`, rounded and
/// saturated at the type's ends (NaN as 0, ±inf as the ends: topk-ref's `Element::from_f32`),
/// so that the families keep their shape (spread, ties, extremes) in every integer type.
fn integers<E: Element>(x: &Array2<f32>, scale: f32) -> Array2<E> {
    x.mapv(|v| E::from_f32((v * scale).round()))
}

/// A hash of element `i` of an input (splitmix64): the 64-bit inputs' extra bits.
fn mix(i: usize) -> u64 {
    let mut z = (i as u64).wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// An f64 input from a family's f32 input (`fi`-th family): each value converted exactly (NaN
/// keeps its sign and payload), and a quarter of the finite non-zero ones given low mantissa
/// bits of their own (values an f32 cannot tell apart: the search must run on f64 values and
/// 64-bit keys); the NaN/inf family gets f64 subnormals of both signs and the f64 ends too.
fn doubles(x: &Array2<f32>, fi: usize) -> Array2<f64> {
    let (n, m) = x.dim();
    let specials = FAMILIES[fi] == "nan-inf";
    let v = x.iter().enumerate().map(|(i, &v)| {
        let (h, d) = (mix(i), f64::from(v));
        match h % 64 {
            0 | 1 if specials => f64::from_bits((h >> 12) | ((h & 1) << 63)), // subnormals
            2 if specials => [f64::MAX, f64::MIN, f64::MIN_POSITIVE][(h >> 8) as usize % 3],
            r if r % 4 == 3 && d.is_finite() && d != 0.0 => {
                f64::from_bits(d.to_bits() ^ ((h >> 20) & 0x0FFF_FFFF))
            }
            _ => d,
        }
    });
    Array2::from_shape_vec((n, m), v.collect()).unwrap_or_else(|_| x.mapv(f64::from))
}

/// An i64 input from a family's f32 input: each value times 2^40, rounded and saturated at
/// the type's ends ([`integers`]: NaN as 0, ±inf as `i64::MIN` / `i64::MAX`), a quarter of the
/// others given low bits of their own (the search must run on the values' 64 bits).
fn longs(x: &Array2<f32>) -> Array2<i64> {
    let (n, m) = x.dim();
    let base = integers::<i64>(x, 1_099_511_627_776.0);
    let v = base.iter().enumerate().map(|(i, &v)| {
        let h = mix(i);
        if h % 4 == 3 && v != i64::MIN && v != i64::MAX { v ^ (h >> 40) as i64 } else { v }
    });
    Array2::from_shape_vec((n, m), v.collect()).unwrap_or(base)
}

/// One input's cases: on the GPU in turn, then their references in parallel.
fn check_group<E: VerifyElem>(
    gpu: &CudaTopK,
    group: &[Case],
    x: &Array2<E>,
    references: &[Reference<'_>],
    report: &mut Report,
) -> Result<(), CudaError> {
    let mut gpu_results = Vec::with_capacity(group.len());
    for case in group {
        let got = gpu.topk_rows_with(x.view(), case.k, case.opts, case.bisect, case.strategy)?;
        gpu_results.push((got, case.route(gpu)?));
    }
    let limits = gpu.limits();
    let checked: Vec<Result<Checked, CudaError>> = group
        .par_iter()
        .zip(&gpu_results)
        .map(|(case, (got, route))| check_case(limits, case, x, got, route, references))
        .collect();
    for (case, checked) in group.iter().zip(checked) {
        report.add(case, checked?);
    }
    Ok(())
}

/// What the equivalence check needs of an element type: its CPU references (the simulator
/// runs every type the kernel takes).
trait VerifyElem: DeviceElement {
    /// The references' results for `case`: `references` (f32 rows only), or `bisect` for
    /// 16-bit rows.
    fn references(x: &Array2<Self>, case: &Case, references: &[Reference<'_>]) -> References<Self>;
}

/// Each reference's name and result.
type References<E> = Result<Vec<(String, TopK<E>)>, CudaError>;

impl VerifyElem for f32 {
    fn references(x: &Array2<f32>, case: &Case, references: &[Reference<'_>]) -> References<f32> {
        let Case { k, opts, bisect, .. } = *case;
        let run = |(name, make): &Reference<'_>| {
            Ok((name.to_string(), topk_rows(make(bisect).as_ref(), x.view(), k, opts)?))
        };
        references.iter().map(run).collect()
    }
}

/// 16-bit, integer and 64-bit rows: `bisect` on the same matrix.
macro_rules! bisect_references {
    ($($e:ty),*) => {$(
        impl VerifyElem for $e {
            fn references(x: &Array2<$e>, case: &Case, _: &[Reference<'_>]) -> References<$e> {
                let rows = topk_rows(&case.bisect, x.view(), case.k, case.opts)?;
                Ok(vec![("bisect".into(), rows)])
            }
        }
    )*};
}

bisect_references!(f16, bf16, i8, u8, i16, i32, f64, i64);

/// One case of [`check_all`]: the `wi`-th width and `fi`-th family.
#[derive(Clone, Copy, Debug)]
struct Case {
    wi: usize,
    fi: usize,
    elem: ElemType,
    n: usize,
    m: usize,
    k: usize,
    bisect: Bisect,
    opts: Options,
    strategy: Strategy,
}

impl Case {
    fn launch(&self) -> Launch {
        let Case { n, m, k, bisect, opts, .. } = *self;
        Launch { n, m, k, mode: opts.mode, bisect, sorted: opts.sorted, elem: self.elem }
    }

    /// The route the GPU takes: split rows under [`Strategy::Split`] (no iteration counts),
    /// else the whole rows' plan (`topk_rows_with` returns the counts).
    fn route(&self, gpu: &CudaTopK) -> Result<Route, CudaError> {
        self.route_on(&gpu.limits())
    }

    /// [`Case::route`] on a device of `limits` (the plan is a pure function of them).
    fn route_on(&self, limits: &DeviceLimits) -> Result<Route, CudaError> {
        rtopk_cuda::plan::route(
            &self.launch(),
            limits,
            self.strategy,
            self.strategy != Strategy::Split,
        )
    }
}

/// The launch families (less the type's suffix) that a check of [`WIDTHS`] must run in every
/// 32-bit-key element type, at the quick size (2^16 elements a case) as at the full one.
pub const CHECKED_FAMILIES: [&str; 8] = [
    "rtopk_quarter_rows",
    "rtopk_half_rows",
    "rtopk_warp_rows",
    "rtopk_block_rows",
    "rtopk_block_rows_narrow",
    "rtopk_sort_warp_rows",
    "rtopk_sort_rows",
    "split rows (all stages)",
];

/// The launch families (as [`Report::families`] names them: each type's top-k kernels, split
/// rows, and the sorts of sorted cases) that [`check_all`]'s cases of `widths`,
/// `elements_per_case` and `elems` take on a device of `limits`, first appearance first: what
/// a check will cover, known without a GPU.
pub fn planned_families(
    limits: &DeviceLimits,
    widths: &[usize],
    elements_per_case: usize,
    elems: &[ElemType],
) -> Result<Vec<String>, CudaError> {
    let mut out: Vec<String> = Vec::new();
    for case in cases(widths, elements_per_case, elems) {
        let (top, sort) = families_of(case.elem, &case.route_on(limits)?);
        for family in std::iter::once(top).chain(sort) {
            if !out.contains(&family) {
                out.push(family);
            }
        }
    }
    Ok(out)
}

/// The report's names of the families a route of `elem` rows launches: its top-k kernel's
/// family (every split, "split rows (all stages)"; the radix select, "radix rows") and, for
/// sorted output, its sort's.
fn families_of(elem: ElemType, route: &Route) -> (String, Option<String>) {
    let named = |prefix: &str| format!("{prefix}{}", elem.suffix());
    let plans = route.plans();
    let sort = plans.last().and_then(|last| last.sort).map(|s| named(s.unit.family().prefix()));
    match route {
        Route::Direct(plan) => (named(plan.unit.family().prefix()), sort),
        Route::Split { .. } => (named("split rows (all stages)"), sort),
        Route::Radix(_) => (named("radix rows"), sort),
    }
}

/// [`check_all`]'s cases, width by width, family by family (each family's input is made
/// once per pass over its width). The 64-bit types take the automatic strategy only (one
/// kernel holds their rows, rtopk-plan's `wide`): their cases are the others' without a forced
/// strategy (the quarter-warp pass and the split cases).
fn cases(widths: &[usize], elements_per_case: usize, elems: &[ElemType]) -> Vec<Case> {
    elems.iter().flat_map(|&elem| cases_of(widths, elements_per_case, elem)).collect()
}

/// [`cases`] of one element type.
fn cases_of(widths: &[usize], elements_per_case: usize, elem: ElemType) -> Vec<Case> {
    let mut out = Vec::new();
    for (wi, &m) in widths.iter().enumerate() {
        let quarter = m <= MAX_QUARTER_WARP_ROW && !elem.wide();
        let passes: &[bool] = if quarter { &[false, true] } else { &[false] };
        for &forced in passes {
            let n = (elements_per_case / m).clamp(8, 20_000);
            for fi in 0..FAMILIES.len() {
                for k in ks_for(m) {
                    for (si, bisect) in SEARCHES.iter().enumerate() {
                        let mode = if (wi + fi + si + k) % 2 == 0 {
                            Mode::Largest
                        } else {
                            Mode::Smallest
                        };
                        let opts = Options { mode, sorted: (wi + si) % 3 == 0 };
                        let strategy =
                            if forced && 4 * k <= m { Strategy::Quarter } else { Strategy::Auto };
                        let bisect = *bisect;
                        out.push(Case { wi, fi, elem, n, m, k, bisect, opts, strategy });
                    }
                }
            }
        }
    }
    if !elem.wide() {
        out.extend(split_cases(widths.len()).into_iter().map(|c| Case { elem, ..c }));
    }
    out
}

/// The [`SPLIT_CASES`], every family, alternating modes and sorted output (their widths'
/// indices follow `widths`'s, so that each has its own input).
fn split_cases(first: usize) -> Vec<Case> {
    let mut out = Vec::new();
    for (i, &(n, m, k)) in SPLIT_CASES.iter().enumerate() {
        for fi in 0..FAMILIES.len() {
            let mode = if (i + fi) % 2 == 0 { Mode::Largest } else { Mode::Smallest };
            let opts = Options { mode, sorted: (i + fi) % 3 == 1 };
            let (wi, bisect, strategy) = (first + i, Bisect::exact(), Strategy::Split);
            out.push(Case { wi, fi, elem: ElemType::F32, n, m, k, bisect, opts, strategy });
        }
    }
    out
}

/// What one case's comparison found.
#[derive(Debug)]
struct Checked {
    /// The top-k kernel's family and, for sorted output, the sort's.
    families: (String, Option<String>),
    /// The simulator's disagreement, if any.
    sim: Option<String>,
    /// The references' disagreements.
    references: Vec<String>,
}

impl Report {
    /// Adds one case's comparison, in case order.
    fn add(&mut self, case: &Case, c: Checked) {
        let bad = c.sim.is_some();
        self.mismatches.extend(c.sim);
        self.count(c.families.0, case.n, bad);
        if let Some(sort) = c.families.1 {
            self.count(sort, case.n, bad);
        }
        self.mismatches.extend(c.references);
        self.rows += case.n;
        self.cases += 1;
    }
}

/// Compares one case's GPU result (`got`, launched by `route`) with every reference and
/// with the warp simulator following the same route.
fn check_case<E: VerifyElem>(
    limits: DeviceLimits,
    case: &Case,
    x: &Array2<E>,
    got: &TopK<E>,
    route: &Route,
    references: &[Reference<'_>],
) -> Result<Checked, CudaError> {
    let Case { fi, elem, n, m, k, bisect, opts, strategy, .. } = *case;
    let unit = route.plans().first().map_or("the radix select".into(), |p| p.unit.to_string());
    let sim = against_simulator(limits, case, x, route, got).map(|what| {
        format!(
            "warp-sim ({unit}): {what}: {elem:?} m={m} n={n} k={k} {} {bisect:?} {opts:?} \
             strategy {strategy}",
            FAMILIES[fi]
        )
    });
    let mut mismatches = Vec::new();
    if got.iterations.is_none() && route.counts() {
        mismatches.push(format!("no iteration counts: m={m} n={n} k={k} strategy {strategy}"));
    }
    for (name, want) in E::references(x, case, references)? {
        if let Some(what) = difference(got, &want) {
            mismatches.push(format!(
                "{what} differ from {name}: {elem:?} m={m} n={n} k={k} {} {bisect:?} {opts:?} \
                 strategy {strategy}",
                FAMILIES[fi]
            ));
        }
    }
    Ok(Checked { families: families_of(elem, route), sim, references: mismatches })
}

/// The warp simulator on the case's matrix with the GPU's route (its strategy, sorted output
/// and device limits): what differs from the GPU's result, if anything — another route or
/// kernel planned, a finding, or the values, indices or iteration counts.
fn against_simulator<E: VerifyElem>(
    limits: DeviceLimits,
    case: &Case,
    x: &Array2<E>,
    route: &Route,
    got: &TopK<E>,
) -> Option<String> {
    let Case { n, m, k, bisect, opts, strategy, .. } = *case;
    let args = KernelArgs { n, m, k, mode: opts.mode, bisect, mutant: None };
    let config = SimConfig { strategy, sorted: opts.sorted, limits, ..SimConfig::default() };
    let data = x.as_standard_layout();
    let Some(slice) = data.as_slice() else { return Some("no row-major input".into()) };
    let r = match launch_parallel(slice, &args, config) {
        Ok(r) => r,
        Err(e) => return Some(format!("the simulator failed: {e}")),
    };
    // the same kernels (of the case's type, named by elements per lane) in the same stages
    if r.route.units() != route.units() || r.route.depth() != route.depth() {
        return Some(format!("the simulator took another route (first kernel {})", r.plan.unit));
    }
    if !r.summary.is_empty() {
        return Some(format!("the simulator reports {}", r.summary));
    }
    let shaped =
        (Array2::from_shape_vec((n, k), r.values), Array2::from_shape_vec((n, k), r.indices));
    let (Ok(values), Ok(indices)) = shaped else {
        return Some("the simulator's outputs have the wrong shape".into());
    };
    let iterations = route.counts().then(|| Array1::from_vec(r.iterations));
    let sim = TopK { values, indices, iterations };
    difference(got, &sim).map(|what| format!("{what} differ"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`CHECKED_FAMILIES`], which the GPU test of each element type asserts it ran
    /// (rtopk-cuda's `tests/gpu.rs`, `every_family_in`, at the quick size, 2^16 elements a
    /// case), are all planned on an H100's limits in every type: that test fails only where
    /// the GPU's report differs from its plan.
    #[test]
    fn the_quick_check_plans_every_launch_family_in_every_element_type() {
        for elem in ElemType::ALL {
            let planned = planned_families(&warp_sim::H100, &WIDTHS, 1 << 16, &[elem]).unwrap();
            for family in CHECKED_FAMILIES {
                let family = format!("{family}{}", elem.suffix());
                assert!(planned.contains(&family), "{family} not planned: {planned:?}");
            }
        }
    }
}
