//! The comparison (`rtopk bench cpu --compare`): topk-ref's algorithms and the seed papers'
//! baselines on one machine, on the AIR paper's input families, with their work counters.
//!
//! * Regimes: **row-wise** — N × M with M ∈ {256, 768, 4096} and k ∈ {16, 128, 512} (k ≤ M),
//!   N = 2^22 / M rows (2^20 / M when quick), rows in parallel; **single-vector** — N = 1,
//!   M ∈ {2^20, 2^24} (2^20 only when quick), k ∈ {32, 2^10, 2^14}, one core.
//! * Families: by default the AIR paper's (§5.1) uniform, normal and radix-adversarial (the
//!   top 20 bits of every value equal); any [`Family`] may be asked for.
//! * Every cell is checked against an exact reference first; a wrong answer is reported
//!   instead of a time.
//! * Reported: median and minimum time, throughput, and the work counters of the checked run
//!   per input element (reads, writes) and per row (passes, sorting-network merges).
//! * The partial-sort algorithms (bitonic, gridselect, warpselect, drtopk(bitonic)) are skipped
//!   for k > 2048, the largest k their GPU implementations support (AIR paper, §5.1).

use std::time::Instant;

use baselines::{Air, Base, DrTopK};
use ndarray::ArrayView2;
use serde::{Deserialize, Serialize};
use topk_ref::Family;

use crate::bench::check::Reference;
use crate::bench::machine::{Machine, load_average, utc_now};
use crate::bench::measure::{PerElement, measure};
use crate::bench::{Observer, check_memory, check_reps};
use crate::error::Error;
use rtopk::algorithm::Algorithm;
use rtopk::dtype::Dtype;
use rtopk::params::Params;
use rtopk::registry;
use rtopk::rowwise::RowWise;

/// Row widths of the row-wise regime.
const ROW_WIDTHS: [usize; 3] = [256, 768, 4096];
/// k of the row-wise regime.
const ROW_KS: [usize; 3] = [16, 128, 512];
/// Elements of one row-wise shape: N = ROW_ELEMENTS / M.
const ROW_ELEMENTS: usize = 1 << 22;
/// Vector lengths of the single-vector regime.
const VECTOR_WIDTHS: [usize; 2] = [1 << 20, 1 << 24];
/// k of the single-vector regime.
const VECTOR_KS: [usize; 3] = [32, 1 << 10, 1 << 14];
/// Quick runs divide the row-wise rows by this.
const QUICK_DIVISOR: usize = 4;
/// The largest k the GPU partial-sort top-k implementations support (AIR paper, §5.1).
const PARTIAL_SORT_MAX_K: usize = 2048;
/// Fewest timed runs of a cell.
pub const MIN_REPS: usize = 3;
/// A cell whose checked run took longer than this is timed only [`MIN_REPS`] times.
const SLOW_CELL_MS: f64 = 1000.0;

/// The AIR paper's input families (§5.1), the comparison's default.
pub const AIR_FAMILIES: [Family; 3] = [Family::Uniform, Family::Normal, Family::RadixAdversarial];

/// Row-wise or single-vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Regime {
    /// Many rows in parallel.
    RowWise,
    /// One long vector on one core.
    SingleVector,
}

impl Regime {
    /// Both regimes, in report order.
    pub const ALL: [Regime; 2] = [Regime::RowWise, Regime::SingleVector];

    /// The name in reports.
    pub const fn name(self) -> &'static str {
        match self {
            Regime::RowWise => "row-wise",
            Regime::SingleVector => "single-vector",
        }
    }
}

/// What the comparison runs.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareConfig {
    /// 4x fewer rows, and only M = 2^20 in the single-vector regime.
    pub quick: bool,
    /// Contenders by label or registry name (all of a name's variants); `None`: all fourteen.
    pub algos: Option<Vec<String>>,
    /// The input families ([`AIR_FAMILIES`] by default).
    pub families: Vec<Family>,
    /// Timed runs per cell (at least [`MIN_REPS`]; cells slower than a second run 3 times).
    pub reps: usize,
    /// The generator's seed.
    pub seed: u64,
    /// The command line (or call) that asked for the run, recorded in the report.
    pub command: String,
}

/// One algorithm configuration of the comparison.
#[derive(Debug)]
pub struct Contender {
    /// Table and legend label (the registry name, or name(variant)).
    pub label: &'static str,
    /// The configured algorithm.
    pub algo: Box<dyn Algorithm>,
    /// The crate it comes from.
    pub origin: &'static str,
    /// Skipped for k above 2048 (a partial sort).
    pub partial_sort: bool,
}

/// Every contender, in table order: topk-ref's six, then the baselines with two variants.
pub fn all_contenders() -> Result<Vec<Contender>, Error> {
    let named = |label: &'static str, partial_sort| -> Result<Contender, Error> {
        let algo = registry::resolve(label, &Params::default())?;
        let origin = registry::lookup(label).map_or("", |e| e.source);
        Ok(Contender { label, algo, origin, partial_sort })
    };
    let variant = |label, algo: RowWise, partial_sort| Contender {
        label,
        algo: Box::new(algo),
        origin: "baselines",
        partial_sort,
    };
    let bitonic_drtopk =
        DrTopK::new(DrTopK::DEFAULT_BETA, Base::Bitonic).map_err(rtopk::Error::from)?;
    Ok(vec![
        named("heap", false)?,
        named("quickselect", false)?,
        named("radix", false)?,
        named("bucket", false)?,
        named("bitonic", true)?,
        named("bisect", false)?,
        named("air", false)?,
        variant("air(always-buffer)", RowWise::new(Air::always_buffer()), false),
        named("gridselect", true)?,
        named("warpselect", true)?,
        named("drtopk", false)?,
        variant("drtopk(bitonic)", RowWise::new(bitonic_drtopk), true),
        named("torch-radix", false)?,
        named("sort", false)?,
    ])
}

/// The contenders `filter` names (by label, or by registry name for all its variants).
pub fn contenders(filter: Option<&[String]>) -> Result<Vec<Contender>, Error> {
    let all = all_contenders()?;
    let Some(filter) = filter else { return Ok(all) };
    for want in filter {
        if !all.iter().any(|c| c.label == want || c.algo.name() == want) {
            let labels: Vec<&str> = all.iter().map(|c| c.label).collect();
            let (name, valid) = (want.clone(), labels.join(", "));
            return Err(rtopk::Error::UnknownAlgorithm { name, valid }.into());
        }
    }
    Ok(all
        .into_iter()
        .filter(|c| filter.iter().any(|w| w == c.label || w == c.algo.name()))
        .collect())
}

/// A shape of the grid: `n` rows of width `m`, and the k that fit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GridShape {
    /// The regime.
    pub regime: Regime,
    /// Rows.
    pub n: usize,
    /// Row width.
    pub m: usize,
    /// The k run on it.
    pub ks: Vec<usize>,
}

/// The grid's shapes, row-wise first.
pub fn shapes(quick: bool) -> Vec<GridShape> {
    let divisor = if quick { QUICK_DIVISOR } else { 1 };
    let row_wise = ROW_WIDTHS.iter().map(|&m| GridShape {
        regime: Regime::RowWise,
        n: (ROW_ELEMENTS / divisor / m).max(1),
        m,
        ks: ROW_KS.iter().copied().filter(|&k| k <= m).collect(),
    });
    let widths = if quick { &VECTOR_WIDTHS[..1] } else { &VECTOR_WIDTHS[..] };
    let vectors = widths.iter().map(|&m| GridShape {
        regime: Regime::SingleVector,
        n: 1,
        m,
        ks: VECTOR_KS.to_vec(),
    });
    row_wise.chain(vectors).collect()
}

/// One line of the comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompareRow {
    /// `row-wise` or `single-vector`.
    pub regime: String,
    /// The input family.
    pub family: String,
    /// Rows.
    pub n: usize,
    /// Row width.
    pub m: usize,
    /// Values selected per row.
    pub k: usize,
    /// The registry name.
    pub algo: String,
    /// The configuration (the name, or name(variant)).
    pub label: String,
    /// The crate it comes from.
    pub origin: String,
    /// Exact as configured.
    pub exact: bool,
    /// Median time.
    pub median_ms: Option<f64>,
    /// Fastest time.
    pub min_ms: Option<f64>,
    /// Throughput, millions of input elements per second.
    pub melem_per_s: Option<f64>,
    /// Timed runs.
    pub reps: usize,
    /// Rayon threads.
    pub threads: usize,
    /// The checked run matched the reference.
    pub verified: bool,
    /// Elements read per input element.
    pub reads_per_elem: Option<f64>,
    /// Elements written per input element.
    pub writes_per_elem: Option<f64>,
    /// Passes over the row, per row.
    pub passes_per_row: Option<f64>,
    /// Sorting-network merges, per row.
    pub merges_per_row: Option<f64>,
    /// Why the cell was not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// What was wrong, when `verified` is false and the cell ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The comparison's report (`--compare --json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompareReport {
    /// The command that ran it.
    pub command: String,
    /// When it ended (UTC).
    pub date_utc: String,
    /// Where it ran.
    pub machine: Machine,
    /// Rayon threads.
    pub threads: usize,
    /// The generator's seed.
    pub seed: u64,
    /// A quick run.
    pub quick: bool,
    /// `/proc/loadavg` before the run (the machine may be shared).
    pub load_before: Option<String>,
    /// `/proc/loadavg` after the run.
    pub load_after: Option<String>,
    /// Wall time of the run, seconds.
    pub wall_s: f64,
    /// Every cell.
    pub rows: Vec<CompareRow>,
}

impl CompareReport {
    /// The cells with wrong answers, as "label (family regime m=… k=…)".
    pub fn wrong_answers(&self) -> Vec<String> {
        self.rows
            .iter()
            .filter(|r| r.error.is_some())
            .map(|r| format!("{} ({} {} m={} k={})", r.label, r.family, r.regime, r.m, r.k))
            .collect()
    }
}

/// Checks the run before anything is allocated; returns its contenders.
pub fn plan(config: &CompareConfig) -> Result<Vec<Contender>, Error> {
    check_reps(config.reps, MIN_REPS)?;
    for s in shapes(config.quick) {
        for &k in &s.ks {
            check_memory("comparison", (s.n, s.m, k), Dtype::Float32, true)?;
        }
    }
    contenders(config.algos.as_deref())
}

/// What a row of the table is about.
#[derive(Clone, Copy, Debug)]
struct Cell {
    regime: Regime,
    family: Family,
    k: usize,
}

/// Runs the comparison, reporting each cell to `observer`.
pub fn run(
    config: &CompareConfig,
    observer: &mut dyn Observer<CompareRow>,
) -> Result<CompareReport, Error> {
    let contenders = plan(config)?;
    let load_before = load_average();
    let started = Instant::now();
    let grid = shapes(config.quick);
    let cells_per_family: usize = grid.iter().map(|s| s.ks.len()).sum();
    observer.begin((config.families.len() * cells_per_family * contenders.len()) as u64);
    let mut rows = Vec::new();
    for &family in &config.families {
        for shape in &grid {
            let x = family.matrix(shape.n, shape.m, config.seed)?;
            for &k in &shape.ks {
                let reference = Reference::new(x.view(), k)?;
                for c in &contenders {
                    let cell = Cell { regime: shape.regime, family, k };
                    let row = measure_cell(c, x.view(), cell, &reference, config.reps, observer)?;
                    observer.row(&row);
                    rows.push(row);
                }
            }
        }
    }
    observer.end();
    Ok(CompareReport {
        command: config.command.clone(),
        date_utc: utc_now(),
        machine: Machine::this(),
        threads: rayon::current_num_threads(),
        seed: config.seed,
        quick: config.quick,
        load_before,
        load_after: load_average(),
        wall_s: started.elapsed().as_secs_f64(),
        rows,
    })
}

/// One checked (and counted) run, then timed runs.
fn measure_cell(
    c: &Contender,
    x: ArrayView2<'_, f32>,
    cell: Cell,
    reference: &Reference,
    reps: usize,
    observer: &mut dyn Observer<CompareRow>,
) -> Result<CompareRow, Error> {
    let (n, m) = x.dim();
    let k = cell.k;
    let mut row = CompareRow {
        regime: cell.regime.name().to_string(),
        family: cell.family.name().to_string(),
        n,
        m,
        k,
        algo: c.algo.name().to_string(),
        label: c.label.to_string(),
        origin: c.origin.to_string(),
        exact: c.algo.is_exact(),
        median_ms: None,
        min_ms: None,
        melem_per_s: None,
        reps: 0,
        threads: rayon::current_num_threads(),
        verified: false,
        reads_per_elem: None,
        writes_per_elem: None,
        passes_per_row: None,
        merges_per_row: None,
        skipped: None,
        error: None,
    };
    observer.cell(&format!("{} {} {n}×{m} k={k} {}", row.family, row.regime, c.label));
    if c.partial_sort && k > PARTIAL_SORT_MAX_K {
        row.skipped = Some(format!(
            "k > {PARTIAL_SORT_MAX_K}: beyond the GPU partial-sort implementations (AIR paper §5.1)"
        ));
        return Ok(row);
    }
    let slow_aware = |checked_ms: f64| if checked_ms > SLOW_CELL_MS { MIN_REPS } else { reps };
    let measured = measure(c.algo.as_ref(), x, k, &reference.topk, slow_aware)?;
    if let Some(why) = measured.error {
        observer.wrong_answer(&format!(
            "from {} on {} {} m={m} k={k}: {why}",
            c.label, row.family, row.regime
        ));
        row.error = Some(why);
        return Ok(row);
    }
    row.verified = true;
    row.reps = measured.times_ms.len();
    if let Some(work) = &measured.work {
        let per = PerElement::of(work, n, m);
        (row.reads_per_elem, row.writes_per_elem) =
            (Some(per.reads_per_elem), Some(per.writes_per_elem));
        (row.passes_per_row, row.merges_per_row) =
            (Some(per.passes_per_row), Some(per.merges_per_row));
    }
    row.median_ms = measured.median_ms();
    row.min_ms = measured.min_ms();
    row.melem_per_s = row.median_ms.map(|med| n as f64 * m as f64 / (med / 1e3) / 1e6);
    Ok(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_follow_the_grid() {
        let full = shapes(false);
        let row_cells: usize =
            full.iter().filter(|s| s.regime == Regime::RowWise).map(|s| s.ks.len()).sum();
        assert_eq!(row_cells, 8, "k = 512 does not fit M = 256");
        assert!(full.iter().all(|s| s.n * s.m <= ROW_ELEMENTS.max(1 << 24)));
        assert_eq!(full.iter().filter(|s| s.regime == Regime::SingleVector).count(), 2);
        let quick = shapes(true);
        assert_eq!(quick.iter().filter(|s| s.regime == Regime::SingleVector).count(), 1);
        assert_eq!(quick[0].n, (1 << 20) / 256);
    }

    #[test]
    fn filters_by_label_or_name() {
        let labels = |f: &[&str]| -> Vec<&'static str> {
            let f: Vec<String> = f.iter().map(|s| s.to_string()).collect();
            contenders(Some(&f)).unwrap().iter().map(|c| c.label).collect()
        };
        assert_eq!(labels(&["air"]), ["air", "air(always-buffer)"]);
        assert_eq!(labels(&["drtopk(bitonic)", "heap"]), ["heap", "drtopk(bitonic)"]);
        assert!(contenders(Some(&["nope".to_string()])).is_err());
        let all = all_contenders().unwrap();
        assert_eq!(all.len(), 14);
        assert!(all.iter().all(|c| c.algo.is_exact()));
        let origins: Vec<&str> = all.iter().map(|c| c.origin).collect();
        assert_eq!(origins.iter().filter(|&&o| o == "topk-ref").count(), 6);
        assert_eq!(origins.iter().filter(|&&o| o == "baselines").count(), 8);
    }

    #[test]
    fn plan_checks_reps() {
        let cfg = CompareConfig {
            quick: true,
            algos: None,
            families: AIR_FAMILIES.to_vec(),
            reps: 2,
            seed: 1,
            command: String::new(),
        };
        assert!(plan(&cfg).unwrap_err().to_string().contains("at least 3"));
        assert_eq!(plan(&CompareConfig { reps: 3, ..cfg }).unwrap().len(), 14);
    }
}
