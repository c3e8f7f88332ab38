//! Iteration statistics of RTop-K's bisection over many rows: SPEC §3's counts, reported as
//! SPEC §4's `rtopk stats iterations --json` object. One function serves every face (the
//! command line prints it, Python returns it as a dict), so they report the same numbers.
//!
//! The counts are topk-ref's `Bisect` counts, measured by the analysis crate's allocation-free
//! path ([`analysis::simulate`]). Rows come from an input family (seeded: identical for every
//! thread count), from a `.npy` file (read in blocks of rows whose counts are merged, so memory
//! is one block whatever the file's size), or from a matrix in memory.

use std::fmt::Write as _;
use std::path::Path;

use analysis::expectation::expected_iterations;
use analysis::{AnalysisError, Convention, IterationStats, RowSource, SimSpec, simulate};
use serde::Serialize;
use topk_ref::inputs::stream_id;
use topk_ref::{Bisect, EpsilonMode, Family, TopKError};

use crate::error::Error;
use crate::npy::{DEFAULT_BLOCK_BYTES, MatrixReader};
use crate::params::Params;

/// Rows measured when the caller does not say: Table 5's 10^4.
pub const DEFAULT_REPS: usize = 10_000;

/// Where the measured rows come from.
#[derive(Clone, Copy, Debug)]
pub enum Rows<'a> {
    /// Rows of width `m` drawn from `family`; row `r` from its own stream under `seed`
    /// (`topk_ref::inputs::row_rng`), so the rows do not depend on the thread count.
    Family {
        /// The input family (the command line's `--dist`).
        family: Family,
        /// The seed.
        seed: u64,
        /// Row width.
        m: usize,
    },
    /// The rows of a 2-D float32 `.npy` file, read block by block.
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

/// SPEC §4's `stats iterations --json` object, with a few more keys. Counts follow SPEC §3
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
    let (stats, seed) = match spec.rows {
        Rows::Family { family, seed, m } => {
            let reps = spec.reps.unwrap_or(DEFAULT_REPS);
            let src =
                RowSource::Dist { dist: family, seed, stream: stream_id("stats", &[m as u64]) };
            (measure(&src, m, reps, spec.k, bisect)?, Some(seed))
        }
        Rows::Npy { path, m } => (from_file(path, m, spec.reps, spec.k, bisect)?, None),
        Rows::Matrix { data, m } => {
            analysis::montecarlo::check_width(m)?;
            let n = data.len() / m;
            let reps = rows_wanted(spec.reps, n, || "the matrix".to_string())?;
            (measure(&RowSource::Matrix { data, m }, m, reps, spec.k, bisect)?, None)
        }
    };
    Ok(report(spec, stats, seed, bisect))
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
) -> Result<IterationStats, Error> {
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
    count_rows(&mut reader, reps, k, bisect, rows_per_block)
}

/// The counts of the first `reps` rows of `reader`, measured block by block and merged (exact
/// integer counts: the same as one block of every row).
fn count_rows(
    reader: &mut MatrixReader,
    reps: usize,
    k: usize,
    bisect: Bisect,
    rows_per_block: usize,
) -> Result<IterationStats, Error> {
    let m = reader.shape().1;
    let mut block = Vec::new();
    let mut total = IterationStats::new(m, k);
    let mut done = 0;
    while done < reps {
        let rows = reader.read_block(rows_per_block.min(reps - done), &mut block)?;
        if rows == 0 {
            break;
        }
        total.merge(&measure(&RowSource::Matrix { data: &block, m }, m, rows, k, bisect)?);
        done += rows;
    }
    Ok(total)
}

fn report(
    spec: &IterationsSpec<'_>,
    s: IterationStats,
    seed: Option<u64>,
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
        let source = match &self.input {
            Some(p) => format!("rows of {p}"),
            None => match self.seed {
                Some(seed) => format!("{} rows (seed {seed})", self.dist),
                None => format!("rows of the {}", self.dist),
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
    use crate::params::Precision;

    fn family(m: usize, k: usize, reps: usize, params: Params) -> IterationsReport {
        let rows = Rows::Family { family: Family::Normal, seed: 7, m };
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
        let rows = Rows::Family { family: Family::Normal, seed: 0, m: 8 };
        let e = iterations(&IterationsSpec { rows, k: 2, reps: None, params: p }).unwrap_err();
        assert!(matches!(e, Error::ConflictingParams), "{e}");
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
            count_rows(&mut reader, reps, 7, Bisect::exact(), rows_per_block).unwrap()
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
}
