//! Recall statistics of the bisection's recall rule (docs/contract.md §6; the rule is
//! `topk_ref::bisect`'s module docs, "Recall"): for a table of targets × input families × row
//! widths × k, the recall each row achieved against the canonical top k (docs/contract.md §1)
//! and the iterations the search made, beside exact mode's on the same rows. The command line
//! prints it (`rtopk stats recall`).
//!
//! Every row goes through `topk_ref::topk_row` with `Bisect::with_recall(r)` as any caller's
//! would; the canonical set comes from `topk_ref::oracle`. Rows are drawn per row from their
//! own stream under the seed (the same for every thread count), and every sum is an integer, so
//! a report depends on the seed alone. `bf16-ties` rows are the `normal` rows of the same seed
//! rounded to bfloat16 (to nearest, ties to even) and run as bfloat16 rows: at M = 4096 most of
//! their values are tied with others. A `.npy` file's rows run in the file's own type.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use analysis::montecarlo::{ROWS_PER_TASK, check_size, check_width};
use rayon::prelude::*;
use serde::Serialize;
use topk_ref::inputs::stream_id;
use topk_ref::oracle::canonical_sorted_indices;
use topk_ref::{Bisect, Element, Family, Mode, Options, TopKError, bf16, f16, topk_row};

use crate::error::Error;
use crate::npy::{DEFAULT_BLOCK_BYTES, MatrixReader, NpyFloat};
use rtopk::dtype::Dtype;

/// The targets measured when the caller names none: docs/contract.md §6's table.
pub const DEFAULT_TARGETS: [f32; 4] = [0.8, 0.9, 0.95, 0.99];
/// Row widths measured by default.
pub const DEFAULT_MS: [usize; 3] = [256, 4096, 65536];
/// Values of k measured by default (each must fit every width).
pub const DEFAULT_KS: [usize; 3] = [8, 32, 128];
/// Rows per cell by default: the default table runs in about 10 s on one core (release).
pub const DEFAULT_REPS: usize = 100;

/// Where the rows of one family of cells come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecallFamily {
    /// float32 rows of an input family.
    Drawn(Family),
    /// `normal` rows rounded to bfloat16, run as bfloat16 rows: heavy ties.
    Bf16Ties,
}

impl RecallFamily {
    /// The families measured by default: those docs/contract.md §6's measurements name.
    pub const DEFAULT: [RecallFamily; 5] = [
        RecallFamily::Drawn(Family::Normal),
        RecallFamily::Drawn(Family::Uniform),
        RecallFamily::Drawn(Family::Relu),
        RecallFamily::Drawn(Family::LlmLogits),
        RecallFamily::Bf16Ties,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            RecallFamily::Drawn(f) => f.name(),
            RecallFamily::Bf16Ties => "bf16-ties",
        }
    }

    /// The element type the rows run in.
    pub fn dtype(self) -> Dtype {
        match self {
            RecallFamily::Drawn(_) => Dtype::Float32,
            RecallFamily::Bf16Ties => Dtype::Bfloat16,
        }
    }
}

impl FromStr for RecallFamily {
    type Err = TopKError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.eq_ignore_ascii_case("bf16-ties") {
            return Ok(RecallFamily::Bf16Ties);
        }
        s.parse().map(RecallFamily::Drawn).map_err(|_| TopKError::InvalidParameter {
            name: "family",
            reason: format!(
                "unknown family '{s}'; known: {}, bf16-ties",
                Family::ALL.map(Family::name).join(", ")
            ),
        })
    }
}

/// The rows measured.
#[derive(Clone, Debug, PartialEq)]
pub enum RecallSource {
    /// Drawn rows of each family, at each width of [`RecallSpec::ms`].
    Families(Vec<RecallFamily>),
    /// The rows of a 2-D float32 (`<f4`) or float16 (`<f2`) `.npy` file, in the file's type.
    Npy(PathBuf),
}

/// One recall experiment: every (family, m, k, target) cell.
#[derive(Clone, Debug, PartialEq)]
pub struct RecallSpec {
    /// The rows.
    pub source: RecallSource,
    /// Row widths of drawn rows; with a file, empty or the file's width.
    pub ms: Vec<usize>,
    /// Values selected per row (`1 <= k <= m` for every width).
    pub ks: Vec<usize>,
    /// Recall targets, each in `(0, 1]` (1: exact mode).
    pub targets: Vec<f32>,
    /// Rows per cell: [`DEFAULT_REPS`] drawn rows by default; the first `reps` rows of a file
    /// (at most [`DEFAULT_REPS`] by default).
    pub reps: Option<usize>,
    /// The seed of drawn rows.
    pub seed: u64,
}

impl Default for RecallSpec {
    fn default() -> Self {
        Self {
            source: RecallSource::Families(RecallFamily::DEFAULT.to_vec()),
            ms: DEFAULT_MS.to_vec(),
            ks: DEFAULT_KS.to_vec(),
            targets: DEFAULT_TARGETS.to_vec(),
            reps: None,
            seed: 0,
        }
    }
}

/// One cell of the table: a family, a width, a k and a target, over `rows` rows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RecallCell {
    /// The family's name (`"npy"` for a file).
    pub family: String,
    /// The element type the rows ran in.
    pub dtype: Dtype,
    /// Row width.
    pub m: usize,
    /// k.
    pub k: usize,
    /// The recall target r.
    pub target: f32,
    /// What the rule guarantees on every row: `ceil(r·k) / k` (`r·k` in f32).
    pub guaranteed_recall: f64,
    /// Rows measured.
    pub rows: u64,
    /// Mean over the rows of `|answer ∩ canonical top k| / k`.
    pub mean_recall: f64,
    /// The smallest row recall.
    pub min_recall: f64,
    /// Mean iterations (docs/contract.md §3) with the target.
    pub mean_iterations: f64,
    /// Mean iterations of exact mode on the same rows.
    pub exact_mean_iterations: f64,
    /// `mean_iterations / exact_mean_iterations` (`null` when exact mode made no test).
    pub iteration_ratio: Option<f64>,
}

/// The whole table and the settings that made it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RecallReport {
    /// The targets.
    pub targets: Vec<f32>,
    /// The families' names (`["npy"]` for a file).
    pub families: Vec<String>,
    /// The row widths.
    pub ms: Vec<usize>,
    /// The values of k.
    pub ks: Vec<usize>,
    /// Rows per cell.
    pub reps: usize,
    /// The seed of drawn rows (`null` for a file).
    pub seed: Option<u64>,
    /// The `.npy` file the rows came from, if any.
    pub input: Option<String>,
    /// One cell per (family, m, k, target), in that order.
    pub cells: Vec<RecallCell>,
}

/// Measures every cell of `spec`. Every argument is checked first (targets, widths, k against
/// every width, rows); a bad one is a typed [`Error`], never a panic.
pub fn recall(spec: &RecallSpec) -> Result<RecallReport, Error> {
    let bisects =
        spec.targets.iter().map(|&r| Bisect::with_recall(r)).collect::<Result<Vec<_>, _>>()?;
    non_empty("targets", spec.targets.len())?;
    non_empty("k", spec.ks.len())?;
    if let Some(&k) = spec.ks.iter().find(|&&k| k == 0) {
        return Err(TopKError::InvalidParameter {
            name: "k",
            reason: format!("{k}: the recall of an empty selection is not defined; k >= 1"),
        }
        .into());
    }
    let mut cells = Vec::new();
    let (families, ms, reps, seed, input) = match &spec.source {
        RecallSource::Families(families) => {
            non_empty("family", families.len())?;
            non_empty("m", spec.ms.len())?;
            let reps = spec.reps.unwrap_or(DEFAULT_REPS);
            for &m in &spec.ms {
                check_shapes(m, &spec.ks, reps)?;
            }
            for &family in families {
                for &m in &spec.ms {
                    let sums = drawn(family, spec.seed, m, reps, &spec.ks, &bisects)?;
                    cells.extend(sums.cells(family.name(), family.dtype(), m, spec));
                }
            }
            let names = families.iter().map(|f| f.name().to_string()).collect();
            (names, spec.ms.clone(), reps, Some(spec.seed), None)
        }
        RecallSource::Npy(path) => {
            let (m, reps, dtype, sums) = from_file(path, spec, &bisects)?;
            cells.extend(sums.cells("npy", dtype, m, spec));
            (vec!["npy".to_string()], vec![m], reps, None, Some(path.display().to_string()))
        }
    };
    Ok(RecallReport {
        targets: spec.targets.clone(),
        families,
        ms,
        ks: spec.ks.clone(),
        reps,
        seed,
        input,
        cells,
    })
}

/// A list option must name at least one value.
fn non_empty(name: &'static str, len: usize) -> Result<(), Error> {
    if len == 0 {
        let reason = "at least one value is needed".to_string();
        return Err(TopKError::InvalidParameter { name, reason }.into());
    }
    Ok(())
}

/// Checks width `m` (bounded, as the iteration statistics bound it), every k against it and
/// `reps` rows of it.
fn check_shapes(m: usize, ks: &[usize], reps: usize) -> Result<(), Error> {
    check_width(m)?;
    if let Some(&k) = ks.iter().find(|&&k| k > m) {
        return Err(TopKError::KTooLarge { k, m }.into());
    }
    if reps == 0 {
        let reason = "at least one row per cell is needed".to_string();
        return Err(TopKError::InvalidParameter { name: "reps", reason }.into());
    }
    check_size(reps, m)?;
    Ok(())
}

/// Integer sums over rows for each (k, target) of one family and width.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Sums {
    rows: u64,
    /// Per k: exact mode's iterations.
    exact_iterations: Vec<u64>,
    /// Per (k, target), k-major: canonical indices found, summed over rows.
    hits: Vec<u64>,
    /// Per (k, target): the fewest canonical indices found in one row.
    min_hits: Vec<usize>,
    /// Per (k, target): iterations with the target.
    iterations: Vec<u64>,
}

impl Sums {
    fn new(ks: usize, targets: usize) -> Self {
        Self {
            rows: 0,
            exact_iterations: vec![0; ks],
            hits: vec![0; ks * targets],
            min_hits: vec![usize::MAX; ks * targets],
            iterations: vec![0; ks * targets],
        }
    }

    fn merge(mut self, other: Self) -> Self {
        self.rows += other.rows;
        let add = |a: &mut Vec<u64>, b: &[u64]| a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        add(&mut self.exact_iterations, &other.exact_iterations);
        add(&mut self.hits, &other.hits);
        add(&mut self.iterations, &other.iterations);
        self.min_hits.iter_mut().zip(&other.min_hits).for_each(|(x, &y)| *x = (*x).min(y));
        self
    }

    /// The cells these sums make, k-major then target.
    fn cells(&self, family: &str, dtype: Dtype, m: usize, spec: &RecallSpec) -> Vec<RecallCell> {
        let rows = self.rows.max(1) as f64;
        let mut out = Vec::new();
        for (ki, &k) in spec.ks.iter().enumerate() {
            let exact = self.exact_iterations[ki] as f64 / rows;
            for (ti, &target) in spec.targets.iter().enumerate() {
                let c = ki * spec.targets.len() + ti;
                let mean_iterations = self.iterations[c] as f64 / rows;
                let slack = Bisect::with_recall(target).ok().and_then(|b| b.recall_slack(k));
                out.push(RecallCell {
                    family: family.to_string(),
                    dtype,
                    m,
                    k,
                    target,
                    guaranteed_recall: (k - slack.unwrap_or(0)) as f64 / k as f64,
                    rows: self.rows,
                    mean_recall: self.hits[c] as f64 / (rows * k as f64),
                    min_recall: self.min_hits[c].min(k) as f64 / k as f64,
                    mean_iterations,
                    exact_mean_iterations: exact,
                    iteration_ratio: (exact > 0.0).then(|| mean_iterations / exact),
                });
            }
        }
        out
    }
}

/// One thread's buffers: the drawn f32 row, the row in its type, the canonical rank of each
/// index (`u32::MAX` past the largest k).
type Buffers<E> = (Vec<f32>, Vec<E>, Vec<u32>);

/// Measures one row for every k and target into `sums`: the canonical order once (for the
/// largest k; a smaller k's set is its prefix), then exact mode and each target per k.
fn measure_row<E: Element>(
    row: &[E],
    ks: &[usize],
    bisects: &[Bisect],
    rank: &mut Vec<u32>,
    sums: &mut Sums,
) -> Result<(), Error> {
    let k_max = ks.iter().copied().max().unwrap_or(0);
    rank.clear();
    rank.resize(row.len(), u32::MAX);
    for (place, &i) in canonical_sorted_indices(row, k_max, Mode::Largest).iter().enumerate() {
        rank[i as usize] = place as u32;
    }
    let opts = Options::default();
    sums.rows += 1;
    for (ki, &k) in ks.iter().enumerate() {
        let exact = topk_row(E::as_dyn(&Bisect::exact()), row, k, opts)?;
        sums.exact_iterations[ki] += u64::from(exact.stats.iterations.unwrap_or(0));
        for (ti, bisect) in bisects.iter().enumerate() {
            let got = topk_row(E::as_dyn(bisect), row, k, opts)?;
            let hits = got.indices.iter().filter(|&&i| (rank[i as usize] as usize) < k).count();
            let c = ki * bisects.len() + ti;
            sums.hits[c] += hits as u64;
            sums.min_hits[c] = sums.min_hits[c].min(hits);
            sums.iterations[c] += u64::from(got.stats.iterations.unwrap_or(0));
        }
    }
    Ok(())
}

/// Where the rows of [`measure_rows`] come from.
#[derive(Clone, Copy, Debug)]
enum Rows<'a, E> {
    /// Row `r` of `family` under `seed` (`Family::row`), rounded to `E`.
    Drawn { family: Family, seed: u64, stream: u64 },
    /// Row-major rows in memory.
    Slice(&'a [E]),
}

/// The sums of `reps` rows of width `m`, rows in parallel in tasks of [`ROWS_PER_TASK`].
fn measure_rows<E: Element>(
    rows: Rows<'_, E>,
    m: usize,
    reps: usize,
    ks: &[usize],
    bisects: &[Bisect],
) -> Result<Sums, Error> {
    let width = if matches!(rows, Rows::Drawn { .. }) { m } else { 0 };
    let empty = || Sums::new(ks.len(), bisects.len());
    (0..reps.div_ceil(ROWS_PER_TASK))
        .into_par_iter()
        .map_init(
            || -> Buffers<E> { (vec![0.0; width], vec![E::default(); width], Vec::new()) },
            |(drawn, buf, rank), t| {
                let mut sums = empty();
                for r in t * ROWS_PER_TASK..((t + 1) * ROWS_PER_TASK).min(reps) {
                    let row = match rows {
                        Rows::Drawn { family, seed, stream } => {
                            family.row(seed, stream, r as u64, drawn);
                            buf.iter_mut()
                                .zip(drawn.iter())
                                .for_each(|(e, &v)| *e = E::from_f32(v));
                            &buf[..]
                        }
                        Rows::Slice(data) => &data[r * m..(r + 1) * m],
                    };
                    measure_row(row, ks, bisects, rank, &mut sums)?;
                }
                Ok(sums)
            },
        )
        .try_reduce(empty, |a, b| Ok(a.merge(b)))
}

/// The sums of `reps` drawn rows of `family` at width `m`.
fn drawn(
    family: RecallFamily,
    seed: u64,
    m: usize,
    reps: usize,
    ks: &[usize],
    bisects: &[Bisect],
) -> Result<Sums, Error> {
    let stream = stream_id("recall", &[m as u64]);
    match family {
        RecallFamily::Drawn(family) => {
            measure_rows::<f32>(Rows::Drawn { family, seed, stream }, m, reps, ks, bisects)
        }
        RecallFamily::Bf16Ties => {
            let rows = Rows::Drawn { family: Family::Normal, seed, stream };
            measure_rows::<bf16>(rows, m, reps, ks, bisects)
        }
    }
}

/// The first rows of the file at `path` (all of them up to [`DEFAULT_REPS`] by default, block
/// by block): its width, the rows measured, its type and the sums.
fn from_file(
    path: &Path,
    spec: &RecallSpec,
    bisects: &[Bisect],
) -> Result<(usize, usize, Dtype, Sums), Error> {
    let mut reader = MatrixReader::open(path)?;
    let (n, m) = reader.shape();
    if let Some(&want) = spec.ms.iter().find(|&&want| want != m) {
        return Err(TopKError::InvalidParameter {
            name: "m",
            reason: format!("{want} does not match the input's row width {m} ({})", path.display()),
        }
        .into());
    }
    if n == 0 {
        return Err(analysis::AnalysisError::NoRows.into());
    }
    let reps = match spec.reps {
        Some(r) if r > n => {
            return Err(TopKError::InvalidParameter {
                name: "reps",
                reason: format!("{r} is more than the {n} rows of {}", path.display()),
            }
            .into());
        }
        Some(r) => r,
        None => n.min(DEFAULT_REPS),
    };
    check_shapes(m, &spec.ks, reps)?;
    let dtype = reader.dtype();
    let sums = match dtype {
        Dtype::Float16 => file_rows::<f16>(&mut reader, reps, &spec.ks, bisects)?,
        // `<f4` (the reader refuses every other dtype when it opens the file).
        _ => file_rows::<f32>(&mut reader, reps, &spec.ks, bisects)?,
    };
    Ok((m, reps, dtype, sums))
}

/// The sums of the first `reps` rows of `reader`, block by block (exact integer sums: the same
/// as one block of every row).
fn file_rows<E: Element + NpyFloat>(
    reader: &mut MatrixReader,
    reps: usize,
    ks: &[usize],
    bisects: &[Bisect],
) -> Result<Sums, Error> {
    let m = reader.shape().1;
    let rows_per_block = reader.rows_per_block(DEFAULT_BLOCK_BYTES);
    let mut block: Vec<E> = Vec::new();
    let mut total = Sums::new(ks.len(), bisects.len());
    let mut done = 0;
    while done < reps {
        let rows = reader.read_block(rows_per_block.min(reps - done), &mut block)?;
        if rows == 0 {
            break;
        }
        total = total.merge(measure_rows(Rows::Slice(&block), m, rows, ks, bisects)?);
        done += rows;
    }
    Ok(total)
}

impl RecallReport {
    /// The report as one line of JSON (what `--json` prints).
    pub fn to_json(&self) -> Result<String, Error> {
        Ok(serde_json::to_string(self)?)
    }

    /// The report as a Markdown table, one line per cell, under a line naming the rows.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let source = match (&self.input, self.seed) {
            (Some(p), _) => format!("the first {} rows of {p}", self.reps),
            (None, Some(seed)) => format!("{} drawn rows per cell, seed {seed}", self.reps),
            (None, None) => format!("{} rows per cell", self.reps),
        };
        let _ = writeln!(
            out,
            "Recall rule of the bisection (docs/contract.md §6), {source}; recall against the \
             canonical top k, iterations per row (docs/contract.md §3)\n"
        );
        out.push_str(
            "| family | dtype | M | k | target | guaranteed | mean recall | min recall \
             | mean iterations | exact iterations | ratio |\n\
             |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        );
        for c in &self.cells {
            let ratio = c.iteration_ratio.map_or("—".to_string(), |r| format!("{r:.3}"));
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {:.4} | {:.4} | {:.4} | {:.2} | {:.2} | {ratio} |",
                c.family,
                c.dtype,
                c.m,
                c.k,
                c.target,
                c.guaranteed_recall,
                c.mean_recall,
                c.min_recall,
                c.mean_iterations,
                c.exact_mean_iterations,
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npy::{NpyDtype, NpyWriter};

    fn small(families: Vec<RecallFamily>, targets: Vec<f32>) -> RecallSpec {
        RecallSpec {
            source: RecallSource::Families(families),
            ms: vec![100, 257],
            ks: vec![1, 8, 37, 100],
            targets,
            reps: Some(70),
            seed: 3,
        }
    }

    /// Every family, every cell: no row below the target (the rule's guarantee), no more
    /// iterations than exact mode, r = 1 exact.
    #[test]
    fn every_row_meets_its_target_in_fewer_iterations() {
        let families: Vec<RecallFamily> = Family::ALL
            .into_iter()
            .map(RecallFamily::Drawn)
            .chain([RecallFamily::Bf16Ties])
            .collect();
        let spec = small(families, vec![0.5, 0.8, 0.9, 0.95, 0.99, 1.0]);
        let r = recall(&spec).unwrap();
        assert_eq!(r.cells.len(), 9 * 2 * 4 * 6);
        let mut saved = false;
        for c in &r.cells {
            assert_eq!(c.rows, 70, "{c:?}");
            // In f32, the target's type (0.99 as f64 is not 0.99f32).
            assert!(c.min_recall as f32 >= c.target, "{c:?}");
            assert!(c.min_recall >= c.guaranteed_recall && c.mean_recall >= c.min_recall, "{c:?}");
            assert!(c.mean_recall <= 1.0, "{c:?}");
            assert!(c.mean_iterations <= c.exact_mean_iterations, "{c:?}");
            if c.target == 1.0 {
                assert_eq!((c.min_recall, c.mean_iterations), (1.0, c.exact_mean_iterations));
            }
            saved |= c.mean_iterations < c.exact_mean_iterations;
        }
        assert!(saved, "the rule never stopped early");
        // The same seed gives the same report.
        assert_eq!(recall(&spec).unwrap(), r);
    }

    #[test]
    fn report_json_has_the_settings_and_the_cell_fields() {
        let spec = small(vec![RecallFamily::Bf16Ties], vec![0.9]);
        let r = recall(&spec).unwrap();
        let v: serde_json::Value = serde_json::from_str(&r.to_json().unwrap()).unwrap();
        for key in ["targets", "families", "ms", "ks", "reps", "seed", "input", "cells"] {
            assert!(v.get(key).is_some(), "missing {key}: {v}");
        }
        let cell = &v["cells"][0];
        for key in [
            "family",
            "dtype",
            "m",
            "k",
            "target",
            "rows",
            "mean_recall",
            "min_recall",
            "mean_iterations",
            "exact_mean_iterations",
            "iteration_ratio",
            "guaranteed_recall",
        ] {
            assert!(cell.get(key).is_some(), "missing {key}: {cell}");
        }
        assert_eq!((&cell["family"], &cell["dtype"]), (&"bf16-ties".into(), &"bfloat16".into()));
        assert_eq!(v["cells"].as_array().unwrap().len(), 2 * 4);
        let table = r.table();
        assert!(table.contains("| bf16-ties | bfloat16 | 257 | 37 | 0.9 |"), "{table}");
        assert_eq!(table.lines().filter(|l| l.starts_with("| bf16-ties")).count(), 8);
    }

    /// A `.npy` file of the rows a family draws gives the same recall and iterations as the
    /// drawn rows; a file's rows and width are checked.
    #[test]
    fn file_rows_measure_like_drawn_rows() {
        let (m, reps) = (96usize, 50usize);
        let stream = stream_id("recall", &[m as u64]);
        let mut values = Vec::new();
        let mut row = vec![0.0f32; m];
        for r in 0..reps {
            Family::Uniform.row(9, stream, r as u64, &mut row);
            values.extend_from_slice(&row);
        }
        let dir = tempfile::tempdir().unwrap();
        let x = dir.path().join("x.npy");
        let mut w = NpyWriter::new(Vec::new(), NpyDtype::F4, &[reps as u64, m as u64]).unwrap();
        w.write_values(values.iter().copied()).unwrap();
        std::fs::write(&x, w.finish().unwrap()).unwrap();
        let drawn = RecallSpec {
            source: RecallSource::Families(vec![RecallFamily::Drawn(Family::Uniform)]),
            ms: vec![m],
            ks: vec![5, 40],
            targets: vec![0.8, 0.95],
            reps: Some(reps),
            seed: 9,
        };
        let file = RecallSpec { source: RecallSource::Npy(x.clone()), ms: vec![], ..drawn.clone() };
        let (a, b) = (recall(&drawn).unwrap(), recall(&file).unwrap());
        assert_eq!(a.cells.len(), b.cells.len());
        for (a, b) in a.cells.iter().zip(&b.cells) {
            assert_eq!(b.family, "npy");
            assert_eq!(
                (a.mean_recall, a.min_recall, a.mean_iterations, a.exact_mean_iterations),
                (b.mean_recall, b.min_recall, b.mean_iterations, b.exact_mean_iterations)
            );
        }
        assert_eq!(
            (b.input.as_deref(), b.seed, b.ms.clone()),
            (Some(&*x.display().to_string()), None, vec![m])
        );
        let over = RecallSpec { reps: Some(reps + 1), ..file.clone() };
        assert!(recall(&over).unwrap_err().to_string().contains("51 is more than the 50 rows"));
        let wrong = RecallSpec { ms: vec![95], ..file };
        assert!(recall(&wrong).unwrap_err().to_string().contains("row width 96"));
    }

    #[test]
    fn bad_requests_are_typed_user_errors() {
        let base = small(vec![RecallFamily::Drawn(Family::Normal)], vec![0.9]);
        let bad = [
            RecallSpec { targets: vec![0.0], ..base.clone() },
            RecallSpec { targets: vec![1.5], ..base.clone() },
            RecallSpec { targets: vec![f32::NAN], ..base.clone() },
            RecallSpec { targets: vec![], ..base.clone() },
            RecallSpec { ks: vec![101], ..base.clone() },
            RecallSpec { ks: vec![0], ..base.clone() },
            RecallSpec { ks: vec![], ..base.clone() },
            RecallSpec { ms: vec![0], ..base.clone() },
            RecallSpec { ms: vec![], ..base.clone() },
            RecallSpec { reps: Some(0), ..base.clone() },
            RecallSpec { source: RecallSource::Families(vec![]), ..base.clone() },
            RecallSpec { source: RecallSource::Npy("/nonexistent/x.npy".into()), ..base.clone() },
        ];
        for spec in bad {
            let e = recall(&spec).unwrap_err();
            assert!(e.is_user_error(), "{spec:?}: {e}");
        }
        let e = recall(&RecallSpec { targets: vec![1.5], ..base.clone() }).unwrap_err();
        assert!(e.to_string().contains("(0, 1]"), "{e}");
        let e = "cauchy".parse::<RecallFamily>().unwrap_err();
        assert!(e.to_string().contains("bf16-ties"), "{e}");
        assert_eq!("BF16-TIES".parse::<RecallFamily>().unwrap(), RecallFamily::Bf16Ties);
        assert_eq!("relu".parse::<RecallFamily>().unwrap(), RecallFamily::Drawn(Family::Relu));
    }
}
