//! Iteration statistics of RTop-K's bisection over many rows: docs/contract.md §3's counts, reported as
//! docs/contract.md §4's `rtopk stats iterations --json` object. One function serves every face (the
//! command line prints it, Python returns it as a dict), so they report the same numbers.
//!
//! The counts are topk-ref's `Bisect` counts (docs/contract.md §3), on rows of `f32`, `f16` or `bf16`.
//! `f32` rows are measured by the analysis crate's allocation-free path ([`analysis::simulate`]);
//! 16-bit rows by the same loop here (`count_typed`: keys and range in one pass, then
//! `Bisect::search_keys` on the row's own keys, no selection pass), since a 16-bit row's count
//! is its own: its value phase is the f32 row's, but a key phase runs in 16-bit keys. Rows come
//! from an input family (seeded: identical for every thread count; 16-bit rows are the family's
//! f32 rows rounded to nearest), from a `<f4` or `<f2` `.npy` file (read in blocks of rows whose
//! counts are merged, so memory is one block whatever the file's size), or from an f32 matrix
//! in memory.

use std::fmt::Write as _;
use std::path::Path;

use analysis::expectation::expected_iterations;
use analysis::montecarlo::ROWS_PER_TASK;
use analysis::{AnalysisError, Convention, IterationStats, RowSource, SimSpec, simulate};
use rayon::prelude::*;
use serde::Serialize;
use topk_ref::bisect::BisectExit;
use topk_ref::inputs::stream_id;
use topk_ref::order::keys_and_range_into;
use topk_ref::{Bisect, Element, EpsilonMode, Family, Mode, TopKError, bf16, f16};

use crate::error::Error;
use crate::npy::{DEFAULT_BLOCK_BYTES, MatrixReader, NpyFloat};
use rtopk::dtype::Dtype;
use rtopk::params::Params;

/// Rows measured when the caller does not say: Table 5's 10^4.
pub const DEFAULT_REPS: usize = 10_000;

/// Where the measured rows come from.
#[derive(Clone, Copy, Debug)]
pub enum Rows<'a> {
    /// Rows of width `m` drawn from `family`; row `r` from its own stream under `seed`
    /// (`topk_ref::inputs::row_rng`), so the rows do not depend on the thread count. In a
    /// 16-bit `dtype`, each row is the f32 row rounded to nearest (ties to even).
    Family {
        /// The input family (the command line's `--dist`).
        family: Family,
        /// The seed.
        seed: u64,
        /// Row width.
        m: usize,
        /// The element type of the rows (the command line's `--dtype`).
        dtype: Dtype,
    },
    /// The rows of a 2-D float32 (`<f4`) or float16 (`<f2`) `.npy` file, read block by block
    /// in the file's own type.
    Npy {
        /// The file.
        path: &'a Path,
        /// The row width the caller expects, if any (checked against the file's).
        m: Option<usize>,
    },
    /// The rows of a C-order `(N, m)` matrix in memory.
    Matrix {
        /// `N · m` values, row-major.
        data: &'a [f32],
        /// Row width.
        m: usize,
    },
}

/// One iteration-count experiment.
#[derive(Clone, Copy, Debug)]
pub struct IterationsSpec<'a> {
    /// The rows.
    pub rows: Rows<'a>,
    /// Values selected per row.
    pub k: usize,
    /// Rows measured: [`DEFAULT_REPS`] drawn rows by default; the first `reps` rows of a file
    /// or matrix (all of them by default).
    pub reps: Option<usize>,
    /// The bisection: exact, with a precision (and its epsilon mode), or early stopping.
    pub params: Params,
}

/// docs/contract.md §4's `stats iterations --json` object, with a few more keys. Counts follow docs/contract.md §3
/// (the first threshold test is iteration 1).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IterationsReport {
    /// Row width.
    pub m: usize,
    /// k.
    pub k: usize,
    /// Rows measured.
    pub reps: u64,
    /// The input family's name, `"npy"` for a file, `"matrix"` for rows in memory.
    pub dist: String,
    /// The element type of the rows: `"float32"`, `"float16"` or `"bfloat16"`.
    pub dtype: Dtype,
    /// Mean iteration count.
    pub mean: f64,
    /// Largest count.
    pub max: u32,
    /// `cumulative_percent[i]`: % of rows that exited at iteration `<= i + 1`.
    pub cumulative_percent: Vec<f64>,
    /// E(n) of Appendix A, eq. (4): a number for normal rows with `0 < k < M`, `null` for
    /// normal rows where it is undefined, absent for other rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_en: Option<Option<f64>>,
    /// Smallest count.
    pub min: u32,
    /// Standard deviation of the counts.
    pub stddev: f64,
    /// `histogram[n]`: rows that made n tests.
    pub histogram: Vec<u64>,
    /// Rows that stopped because a test counted exactly k, in %.
    pub exit_by_hit_percent: f64,
    /// The seed of drawn rows (`null` for a file or a matrix).
    pub seed: Option<u64>,
    /// The `.npy` file the rows came from, if any.
    pub input: Option<String>,
    /// Algorithm 1's precision ε' (0: exact).
    pub precision: f32,
    /// How the precision becomes a width: `"relative"` (to the row maximum) or `"absolute"`.
    pub epsilon_mode: &'static str,
    /// Early stopping after this many steps (Algorithm 2), if set.
    pub max_iter: Option<u32>,
    /// The counts themselves (for [`IterationsReport::table`]).
    #[serde(skip)]
    pub stats: IterationStats,
}

/// Measures `spec`: every argument is checked first (k against M, the parameters, sizes), and
/// a bad one is a typed [`Error`], never a panic.
pub fn iterations(spec: &IterationsSpec<'_>) -> Result<IterationsReport, Error> {
    let bisect = bisection(&spec.params)?;
    let (stats, seed, dtype) = match spec.rows {
        Rows::Family { family, seed, m, dtype } => {
            let reps = spec.reps.unwrap_or(DEFAULT_REPS);
            let stream = stream_id("stats", &[m as u64]);
            let count = Count { m, reps, k: spec.k, bisect };
            let stats = match dtype {
                Dtype::Float32 => {
                    let src = RowSource::Dist { dist: family, seed, stream };
                    measure(&src, m, reps, spec.k, bisect)?
                }
                Dtype::Float16 => {
                    count_typed::<f16>(TypedRows::Drawn { family, seed, stream }, count)?
                }
                Dtype::Bfloat16 => {
                    count_typed::<bf16>(TypedRows::Drawn { family, seed, stream }, count)?
                }
                other => return Err(crate::bench::generated_only(other)),
            };
            (stats, Some(seed), dtype)
        }
        Rows::Npy { path, m } => {
            let (stats, dtype) = from_file(path, m, spec.reps, spec.k, bisect)?;
            (stats, None, dtype)
        }
        Rows::Matrix { data, m } => {
            analysis::montecarlo::check_width(m)?;
            let n = data.len() / m;
            let reps = rows_wanted(spec.reps, n, || "the matrix".to_string())?;
            let stats = measure(&RowSource::Matrix { data, m }, m, reps, spec.k, bisect)?;
            (stats, None, Dtype::Float32)
        }
    };
    Ok(report(spec, stats, seed, dtype, bisect))
}

/// The bisection `params` describe (`max_iter` and `precision` exclude each other, as in
/// `select`), with the epsilon mode they name.
fn bisection(params: &Params) -> Result<Bisect, Error> {
    let checked = params.bisect()?;
    Ok(Bisect { epsilon_mode: params.epsilon, ..checked })
}

/// `reps` rows of `src` (one block).
fn measure(
    src: &RowSource<'_>,
    m: usize,
    reps: usize,
    k: usize,
    bisect: Bisect,
) -> Result<IterationStats, Error> {
    let spec = SimSpec { m, ks: vec![k], reps, bisect };
    let stats = simulate(src, &spec, None)?;
    Ok(stats.into_iter().next().unwrap_or_else(|| IterationStats::new(m, k)))
}

/// One count's shape and search: `reps` rows of width `m`, `k` selected.
#[derive(Clone, Copy, Debug)]
struct Count {
    m: usize,
    reps: usize,
    k: usize,
    bisect: Bisect,
}

/// Rows of element type `E` for [`count_typed`].
#[derive(Clone, Copy, Debug)]
enum TypedRows<'a, E> {
    /// Row `r` drawn in f32 from `family` (`Family::row(seed, stream, r)`, the rows
    /// [`RowSource::Dist`] gives), rounded to `E`.
    Drawn { family: Family, seed: u64, stream: u64 },
    /// Row-major rows in memory.
    Slice(&'a [E]),
}

/// Row `r` of `rows` (width `m`): drawn into `drawn` and rounded into `buf` (both of width
/// `m`), or borrowed from the rows in memory.
fn typed_row<'b, E: Element>(
    rows: TypedRows<'b, E>,
    r: usize,
    m: usize,
    drawn: &mut [f32],
    buf: &'b mut [E],
) -> &'b [E] {
    match rows {
        TypedRows::Drawn { family, seed, stream, .. } => {
            family.row(seed, stream, r as u64, drawn);
            buf.iter_mut().zip(drawn.iter()).for_each(|(e, &v)| *e = E::from_f32(v));
            buf
        }
        TypedRows::Slice(data) => &data[r * m..(r + 1) * m],
    }
}

/// Records the docs/contract.md §3 count of `row` for `k` into `stats`: topk-ref's `Bisect` search on the
/// row's own keys (largest mode, into `keys`, the row's width), as its `select` runs it;
/// k = 0 makes no test.
fn record<E: Element>(
    row: &[E],
    keys: &mut [E::Key],
    k: usize,
    bisect: &Bisect,
    stats: &mut IterationStats,
) {
    if k == 0 {
        stats.record(0, false);
        return;
    }
    let range = keys_and_range_into(row, Mode::Largest, keys);
    let outcome = bisect.search_keys::<E>(keys, range, k);
    stats.record(outcome.iterations, outcome.exit == BisectExit::Hit);
}

/// One thread's buffers: the f32 draw and the row in `E` (drawn rows only), the row's keys.
type Buffers<E> = (Vec<f32>, Vec<E>, Vec<<E as Element>::Key>);

/// The counts of `c.reps` rows of `rows`, rows in parallel in tasks of [`ROWS_PER_TASK`] (exact
/// integer counts, so the result does not depend on the thread count). Checks the request as
/// [`analysis::simulate`] does first; the width is bounded there, and so are the buffers.
fn count_typed<E: Element>(rows: TypedRows<'_, E>, c: Count) -> Result<IterationStats, Error> {
    let Count { m, reps, k, bisect } = c;
    SimSpec { m, ks: vec![k], reps, bisect }.validate()?;
    if let TypedRows::Slice(data) = rows {
        if data.len() / m < reps {
            return Err(AnalysisError::NoRows.into());
        }
    }
    let width = if matches!(rows, TypedRows::Drawn { .. }) { m } else { 0 };
    let empty = || IterationStats::new(m, k);
    let stats = (0..reps.div_ceil(ROWS_PER_TASK))
        .into_par_iter()
        .map_init(
            || -> Buffers<E> {
                (vec![0.0; width], vec![E::default(); width], vec![E::Key::default(); m])
            },
            |(drawn, buf, keys), t| {
                let mut stats = empty();
                for r in t * ROWS_PER_TASK..((t + 1) * ROWS_PER_TASK).min(reps) {
                    let row = typed_row(rows, r, m, drawn, buf);
                    record(row, keys, k, &bisect, &mut stats);
                }
                stats
            },
        )
        .reduce(empty, |mut a, b| {
            a.merge(&b);
            a
        });
    Ok(stats)
}

/// The rows wanted of a source holding `n`: all by default, at most `n`.
fn rows_wanted(reps: Option<usize>, n: usize, what: impl Fn() -> String) -> Result<usize, Error> {
    if n == 0 {
        return Err(AnalysisError::NoRows.into());
    }
    match reps {
        Some(r) if r > n => Err(TopKError::InvalidParameter {
            name: "reps",
            reason: format!("{r} is more than the {n} rows of {}", what()),
        }
        .into()),
        Some(r) => Ok(r),
        None => Ok(n),
    }
}

/// The first `reps` rows of the file at `path`, block by block.
fn from_file(
    path: &Path,
    m: Option<usize>,
    reps: Option<usize>,
    k: usize,
    bisect: Bisect,
) -> Result<(IterationStats, Dtype), Error> {
    let mut reader = MatrixReader::open(path)?;
    let (n, width) = reader.shape();
    if let Some(want) = m.filter(|&want| want != width) {
        return Err(TopKError::InvalidParameter {
            name: "m",
            reason: format!(
                "{want} does not match the input's row width {width} ({})",
                path.display()
            ),
        }
        .into());
    }
    let reps = rows_wanted(reps, n, || path.display().to_string())?;
    let rows_per_block = reader.rows_per_block(DEFAULT_BLOCK_BYTES);
    let dtype = reader.dtype();
    let stats = match dtype {
        Dtype::Float16 => count_rows(&mut reader, reps, rows_per_block, |block: &[f16], rows| {
            count_typed(TypedRows::Slice(block), Count { m: width, reps: rows, k, bisect })
        })?,
        // `<f4` (a `.npy` file holds no bfloat16: the reader refuses it when it opens it).
        _ => count_rows(&mut reader, reps, rows_per_block, |block: &[f32], rows| {
            measure(&RowSource::Matrix { data: block, m: width }, width, rows, k, bisect)
        })?,
    };
    Ok((stats, dtype))
}

/// The counts of the first `reps` rows of `reader` (of the file's type `E`), measured block by
/// block by `measure(block, rows)` and merged (exact integer counts: the same as one block of
/// every row).
fn count_rows<E: NpyFloat>(
    reader: &mut MatrixReader,
    reps: usize,
    rows_per_block: usize,
    measure: impl Fn(&[E], usize) -> Result<IterationStats, Error>,
) -> Result<IterationStats, Error> {
    let mut block = Vec::new();
    let mut total: Option<IterationStats> = None;
    let mut done = 0;
    while done < reps {
        let rows = reader.read_block(rows_per_block.min(reps - done), &mut block)?;
        if rows == 0 {
            break;
        }
        let counts = measure(&block, rows)?;
        match &mut total {
            Some(t) => t.merge(&counts),
            None => total = Some(counts),
        }
        done += rows;
    }
    // reps >= 1 (rows_wanted), so at least one block was measured.
    total.ok_or_else(|| AnalysisError::NoRows.into())
}

fn report(
    spec: &IterationsSpec<'_>,
    s: IterationStats,
    seed: Option<u64>,
    dtype: Dtype,
    bisect: Bisect,
) -> IterationsReport {
    let c = Convention::Tests;
    let (dist, expected_en, input) = match spec.rows {
        Rows::Family { family, .. } => {
            let en = (family == Family::Normal).then(|| expected_iterations(s.m, s.k).ok());
            (family.name().to_string(), en, None)
        }
        Rows::Npy { path, .. } => ("npy".to_string(), None, Some(path.display().to_string())),
        Rows::Matrix { .. } => ("matrix".to_string(), None, None),
    };
    IterationsReport {
        m: s.m,
        k: s.k,
        reps: s.reps,
        dist,
        dtype,
        mean: s.mean(c),
        max: s.max(c),
        cumulative_percent: s.cumulative_percent(c),
        expected_en,
        min: s.min(c),
        stddev: s.stddev(c),
        histogram: s.histogram(c),
        exit_by_hit_percent: 100.0 * s.hit_fraction(),
        seed,
        input,
        precision: bisect.precision,
        epsilon_mode: match bisect.epsilon_mode {
            EpsilonMode::RelativeToMax => "relative",
            EpsilonMode::Absolute => "absolute",
        },
        max_iter: bisect.max_iter,
        stats: s,
    }
}

impl IterationsReport {
    /// The object as one line of JSON (what `--json` prints).
    pub fn to_json(&self) -> Result<String, Error> {
        Ok(serde_json::to_string(self)?)
    }

    /// The report as a readable table: a summary line, then rows, % and cumulative % per
    /// iteration count.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let dtype = self.dtype;
        let source = match &self.input {
            Some(p) => format!("{dtype} rows of {p}"),
            None => match self.seed {
                Some(seed) => format!("{} {dtype} rows (seed {seed})", self.dist),
                None => format!("{dtype} rows of the {}", self.dist),
            },
        };
        let algo = match self.max_iter {
            Some(n) => format!("Algorithm 2, max_iter = {n}"),
            None => format!("Algorithm 1, precision {} ({})", self.precision, self.epsilon_mode),
        };
        let _ = writeln!(
            out,
            "Bisection iteration counts: M = {}, k = {}, {} {source}; {algo}",
            self.m, self.k, self.reps
        );
        let _ = write!(
            out,
            "mean {:.3}  stddev {:.3}  min {}  max {}  exit by exact count {:.1}%",
            self.mean, self.stddev, self.min, self.max, self.exit_by_hit_percent
        );
        match self.expected_en {
            Some(Some(en)) => {
                let _ = write!(out, "  E(n) (Appendix A eq. 4) {en:.3}");
            }
            Some(None) => out.push_str("  E(n) undefined (needs 0 < k < M)"),
            None => {}
        }
        let _ = writeln!(
            out,
            "\n\n{:>9} {:>10} {:>9} {:>13}",
            "iteration", "rows", "%", "cumulative %"
        );
        for (n, &rows) in self.histogram.iter().enumerate().filter(|&(_, &r)| r > 0) {
            let pct = 100.0 * rows as f64 / self.reps.max(1) as f64;
            let _ = writeln!(
                out,
                "{n:>9} {rows:>10} {pct:>9.3} {:>13.3}",
                self.stats.cumulative_at(Convention::Tests, n)
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npy::{NpyDtype, NpyWriter};
    use rtopk::params::Precision;

    fn family(m: usize, k: usize, reps: usize, params: Params) -> IterationsReport {
        let rows = Rows::Family { family: Family::Normal, seed: 7, m, dtype: Dtype::Float32 };
        iterations(&IterationsSpec { rows, k, reps: Some(reps), params }).unwrap()
    }

    #[test]
    fn report_has_the_spec_keys_and_a_consistent_distribution() {
        let r = family(256, 64, 500, Params::default());
        let v: serde_json::Value = serde_json::from_str(&r.to_json().unwrap()).unwrap();
        for key in ["m", "k", "reps", "dist", "mean", "max", "cumulative_percent", "expected_en"] {
            assert!(v.get(key).is_some(), "missing {key}: {v}");
        }
        assert_eq!((r.m, r.k, r.reps, r.dist.as_str()), (256, 64, 500, "normal"));
        assert_eq!((r.dtype, &v["dtype"]), (Dtype::Float32, &serde_json::json!("float32")));
        assert!(r.table().contains("500 normal float32 rows (seed 7)"), "{}", r.table());
        assert_eq!(r.histogram.iter().sum::<u64>(), 500);
        assert_eq!(r.cumulative_percent.last().copied(), Some(100.0));
        assert_eq!(r.cumulative_percent.len(), r.max as usize);
        assert!(f64::from(r.min) <= r.mean && r.mean <= f64::from(r.max));
        assert!(matches!(r.expected_en, Some(Some(en)) if en > 1.0));
        assert!(r.table().contains("E(n) (Appendix A eq. 4)"), "{}", r.table());
        // Same seed, same numbers; the counts of drawn rows are the reference bisection's.
        assert_eq!(family(256, 64, 500, Params::default()), r);
    }

    #[test]
    fn early_stopping_counts_exactly_max_iter() {
        let r = family(100, 10, 50, Params::early_stopping(6));
        assert_eq!((r.min, r.max, r.max_iter), (6, 6, Some(6)));
        let p =
            Params { max_iter: Some(2), ..Params::with_precision(Precision::new(0.1).unwrap()) };
        let rows = Rows::Family { family: Family::Normal, seed: 0, m: 8, dtype: Dtype::Float16 };
        let e = iterations(&IterationsSpec { rows, k: 2, reps: None, params: p }).unwrap_err();
        assert!(matches!(e, Error::Lib(rtopk::Error::ConflictingParams)), "{e}");
    }

    #[test]
    fn matrix_rows_count_like_the_driver_and_bad_requests_are_typed() {
        let (n, m, k) = (40usize, 33usize, 5usize);
        let data: Vec<f32> = (0..n * m).map(|i| ((i * 37) % 23) as f32 - 11.0).collect();
        let spec = |reps, k| IterationsSpec {
            rows: Rows::Matrix { data: &data, m },
            k,
            reps,
            params: Params::default(),
        };
        let r = iterations(&spec(None, k)).unwrap();
        let x = ndarray::ArrayView2::from_shape((n, m), &data).unwrap();
        let want = topk_ref::topk_rows(&Bisect::exact(), x, k, Default::default()).unwrap();
        let mut hist = vec![0u64; r.histogram.len()];
        want.iterations.unwrap().iter().for_each(|&it| hist[it as usize] += 1);
        assert_eq!(r.histogram, hist);
        assert_eq!((r.dist.as_str(), r.seed, r.expected_en), ("matrix", None, None));
        let e = iterations(&spec(Some(41), k)).unwrap_err();
        assert!(e.to_string().contains("41 is more than the 40 rows"), "{e}");
        let e = iterations(&spec(None, 34)).unwrap_err();
        assert!(e.to_string().contains("larger than the row width"), "{e}");
        assert!(e.is_user_error());
    }

    #[test]
    fn counts_merged_over_file_blocks_equal_one_block() {
        let dir = tempfile::tempdir().unwrap();
        let (n, m) = (50usize, 33usize);
        let data: Vec<f32> = (0..n * m).map(|i| ((i * 37) % 23) as f32 - 11.0).collect();
        let x = dir.path().join("x.npy");
        let mut w = NpyWriter::new(Vec::new(), NpyDtype::F4, &[n as u64, m as u64]).unwrap();
        w.write_values(data.iter().copied()).unwrap();
        std::fs::write(&x, w.finish().unwrap()).unwrap();
        let count = |reps, rows_per_block| {
            let mut reader = MatrixReader::open(&x).unwrap();
            let measure = |block: &[f32], rows| {
                measure(&RowSource::Matrix { data: block, m }, m, rows, 7, Bisect::exact())
            };
            count_rows(&mut reader, reps, rows_per_block, measure).unwrap()
        };
        for reps in [1, 17, 50] {
            let whole = count(reps, n);
            assert_eq!(whole.reps, reps as u64);
            for rows in [1, 3, 16] {
                assert_eq!(count(reps, rows), whole, "{reps} rows in blocks of {rows}");
            }
        }
        let rows = Rows::Npy { path: &x, m: Some(m) };
        let spec = IterationsSpec { rows, k: 7, reps: None, params: Params::default() };
        let r = iterations(&spec).unwrap();
        assert_eq!((r.reps, r.dist.as_str()), (50, "npy"));
        assert_eq!(r.input.as_deref(), Some(x.display().to_string().as_str()));
        let wrong = IterationsSpec { rows: Rows::Npy { path: &x, m: Some(4) }, ..spec };
        let e = iterations(&wrong).unwrap_err();
        assert!(e.to_string().contains("4 does not match the input's row width 33"), "{e}");
        let more = IterationsSpec { reps: Some(51), ..spec };
        let e = iterations(&more).unwrap_err();
        assert!(e.to_string().contains("51 is more than the 50 rows"), "{e}");
        let in_memory = IterationsSpec { rows: Rows::Matrix { data: &data, m }, ..spec };
        assert_eq!(iterations(&in_memory).unwrap().histogram, r.histogram);
    }

    /// A matrix of `n` rows with every hostile value of docs/contract.md §1, heavy ties, and runs of
    /// 16-bit neighbours (key-phase searches), as f32 values every 16-bit type holds exactly.
    fn hostile_rows(n: usize, m: usize) -> Vec<f32> {
        let specials = [f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, 1.0];
        (0..n * m)
            .map(|i| match (i * 7 + i / m) % 11 {
                0 => specials[(i / 11) % specials.len()],
                1 | 2 => 2.0,
                3 => 2.0 + 2f32.powi(-7),
                _ => ((i * 37) % 23) as f32 - 11.0,
            })
            .collect()
    }

    /// The 16-bit counting loop, run on f32 rows, counts what analysis's path counts, and on
    /// 16-bit rows what topk-ref's driver reports, for every bisection.
    fn typed_counts_match<E: rtopk::KernelElement>(bisect: Bisect) {
        let (n, m) = (150usize, 77usize);
        let wide = hostile_rows(n, m);
        let rows: Vec<E> = wide.iter().map(|&v| E::from_f32(v)).collect();
        for k in [0, 1, 5, m - 1, m] {
            let count = Count { m, reps: n, k, bisect };
            let f32_typed = count_typed(TypedRows::Slice(&wide), count).unwrap();
            let f32_analysis = measure(&RowSource::Matrix { data: &wide, m }, m, n, k, bisect);
            assert_eq!(f32_typed, f32_analysis.unwrap(), "f32, k = {k}");
            let got = count_typed(TypedRows::Slice(&rows), count).unwrap();
            let x = ndarray::ArrayView2::from_shape((n, m), &rows).unwrap();
            let want = topk_ref::topk_rows(E::as_dyn(&bisect), x, k, Default::default()).unwrap();
            let want = want.iterations.unwrap();
            let mut hist = vec![0u64; got.histogram(Convention::Tests).len()];
            want.iter().for_each(|&it| hist[it as usize] += 1);
            assert_eq!(got.histogram(Convention::Tests), hist, "{} k = {k}", E::NAME);
            assert_eq!(got.reps, n as u64);
        }
        // Fewer rows than asked for is an error, as in analysis.
        let e = count_typed(TypedRows::Slice(&rows), Count { m, reps: n + 1, k: 1, bisect });
        assert!(matches!(e, Err(Error::Analysis(AnalysisError::NoRows))));
    }

    #[test]
    fn sixteen_bit_counts_are_the_reference_counts() {
        for bisect in
            [Bisect::exact(), Bisect::early_stopping(5), Bisect::with_precision(0.01).unwrap()]
        {
            typed_counts_match::<f16>(bisect);
            typed_counts_match::<bf16>(bisect);
        }
    }

    /// Drawn 16-bit rows are the family's f32 rows rounded: the counts of a `<f2` file holding
    /// those rows are the drawn rows' counts; the report names the type.
    #[test]
    fn drawn_half_rows_are_the_rounded_f32_rows() {
        let (reps, m, k) = (200usize, 96usize, 12usize);
        let stream = stream_id("stats", &[m as u64]);
        let mut halves = Vec::new();
        let mut row = vec![0.0f32; m];
        for r in 0..reps {
            Family::Ties.row(5, stream, r as u64, &mut row);
            halves.extend(row.iter().map(|&v| f16::from_f32(v)));
        }
        let dir = tempfile::tempdir().unwrap();
        let x = dir.path().join("h.npy");
        let mut w = NpyWriter::new(Vec::new(), NpyDtype::F2, &[reps as u64, m as u64]).unwrap();
        w.write_values(halves.iter().copied()).unwrap();
        std::fs::write(&x, w.finish().unwrap()).unwrap();
        let spec = |rows| IterationsSpec { rows, k, reps: Some(reps), params: Params::default() };
        let drawn = Rows::Family { family: Family::Ties, seed: 5, m, dtype: Dtype::Float16 };
        let drawn = iterations(&spec(drawn)).unwrap();
        let file = iterations(&spec(Rows::Npy { path: &x, m: None })).unwrap();
        assert_eq!(drawn.histogram, file.histogram);
        assert_eq!((drawn.dtype, file.dtype), (Dtype::Float16, Dtype::Float16));
        assert!(drawn.table().contains("200 ties float16 rows (seed 5)"), "{}", drawn.table());
        assert!(file.table().contains("200 float16 rows of"), "{}", file.table());
        let v: serde_json::Value = serde_json::from_str(&file.to_json().unwrap()).unwrap();
        assert_eq!(v["dtype"], "float16");
        // Blocks of a 16-bit file merge like blocks of an f32 file.
        let mut reader = MatrixReader::open(&x).unwrap();
        let measure = |block: &[f16], rows| {
            count_typed(
                TypedRows::Slice(block),
                Count { m, reps: rows, k, bisect: Bisect::exact() },
            )
        };
        let merged = count_rows(&mut reader, reps, 7, measure).unwrap();
        assert_eq!(merged.histogram(Convention::Tests), drawn.histogram);
        // The same rows in f32 and bf16: reports of their own type, the same row count.
        for dtype in [Dtype::Float32, Dtype::Bfloat16] {
            let rows = Rows::Family { family: Family::Ties, seed: 5, m, dtype };
            let r = iterations(&spec(rows)).unwrap();
            assert_eq!((r.dtype, r.reps), (dtype, reps as u64));
        }
        // A 16-bit request is checked like an f32 one.
        let wide = Rows::Family { family: Family::Normal, seed: 0, m: 8, dtype: Dtype::Bfloat16 };
        let e = iterations(&IterationsSpec { k: 9, ..spec(wide) }).unwrap_err();
        assert!(e.is_user_error(), "{e}");
        let none = Rows::Family { family: Family::Normal, seed: 0, m: 0, dtype: Dtype::Float16 };
        assert!(iterations(&spec(none)).unwrap_err().is_user_error());
    }
}
