//! Monte Carlo of Algorithm 1's iteration counts (docs/contract.md §3), with the reference bisection.
//!
//! # The fast path
//! [`IterationCounter`] measures a row the way `topk_ref`'s driver does — order keys and their
//! range in one pass, then [`Bisect::search_in_range`] — but keeps its key buffer between rows
//! and skips the selection pass, which iteration statistics do not need. It also searches many
//! k on one set of keys, so an experiment over several k draws and converts each row once.
//! Nothing is allocated per row once the buffers have grown to the row width. Because the
//! search *is* `topk_ref`'s, the counts are the reference counts; a test checks this against
//! the full driver on rows with ties, NaN, infinities and zeros.
//!
//! # Parallelism and reproducibility
//! Rows are processed by rayon in tasks of [`ROWS_PER_TASK`] rows. Each row's values come from
//! its own seeded stream ([`topk_ref::inputs::row_rng`]) and each task's histogram is exact integer
//! counts, so results are identical for every thread count.

use indicatif::ProgressBar;
use rayon::prelude::*;
use topk_ref::bisect::BisectExit;
use topk_ref::inputs::{Family, row_rng};
use topk_ref::order::keys_and_range_into;
use topk_ref::{Bisect, BisectOutcome, Mode};

use crate::error::AnalysisError;

/// Rows per rayon task: big enough to amortise scheduling and progress updates, small enough
/// to balance two cores on 10^4 rows.
pub const ROWS_PER_TASK: usize = 64;
/// The largest `max_iter` the statistics accept (each count is a histogram bin).
pub const MAX_STATS_ITER: u32 = 1024;
/// The widest row simulated (a buffer of this many values is kept per thread).
pub const MAX_SIM_WIDTH: usize = 1 << 24;
/// The most values (rows × width) one experiment measures: 2^40 is hours of CPU time, far
/// beyond the paper's tables (10^4 to 10^5 rows), so a larger request is refused as a likely
/// typo rather than left to run for days.
pub const MAX_SIM_VALUES: u64 = 1 << 40;
/// Histogram bins reserved up front: exact mode never exceeds 64 iterations.
const INITIAL_BINS: usize = topk_ref::bisect::MAX_ITERATIONS as usize + 1;

/// Where the rows of an experiment come from.
#[derive(Clone, Copy, Debug)]
pub enum RowSource<'a> {
    /// Rows drawn from a distribution; row `r` uses stream `(seed, stream, r)`.
    Dist {
        /// The distribution.
        dist: Family,
        /// The user's seed.
        seed: u64,
        /// The experiment's stream id ([`topk_ref::inputs::stream_id`]).
        stream: u64,
    },
    /// The rows of a C-order `(N, m)` matrix (e.g. a user's `.npy`).
    Matrix {
        /// `N · m` values, row-major.
        data: &'a [f32],
        /// Row width.
        m: usize,
    },
}

impl RowSource<'_> {
    /// Row `r`: drawn into `buf` (which has the row width), or borrowed from the matrix.
    pub fn row<'b>(&'b self, r: usize, buf: &'b mut [f32]) -> &'b [f32] {
        match *self {
            RowSource::Dist { dist, seed, stream } => {
                dist.fill(&mut row_rng(seed, stream, r as u64), buf);
                buf
            }
            RowSource::Matrix { data, m } => &data[r * m..(r + 1) * m],
        }
    }

    /// How many rows the source holds (`None`: unlimited).
    pub fn available_rows(&self) -> Option<usize> {
        match *self {
            RowSource::Dist { .. } => None,
            RowSource::Matrix { data, m } => Some(data.len().checked_div(m).unwrap_or(0)),
        }
    }
}

/// How an exit is turned into an "iteration at exit" number.
///
/// [`Convention::Tests`] is docs/contract.md §3 and topk-ref's; the others are the plausible readings of
/// "iteration at exit" that the reproduction tests against the paper's tables.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub enum Convention {
    /// Threshold tests made; the test that hits is counted (docs/contract.md §3: the first test is 1).
    #[default]
    Tests,
    /// A zero-based loop counter: the test that hits is not counted (hit at test n → n − 1).
    ZeroBased,
    /// Tests plus one for the final selection pass (n → n + 1).
    WithSelection,
    /// `while` condition checks: a hit after n tests made n checks; leaving the loop because
    /// `max − min <= ε` (or because no midpoint is left) made n + 1.
    LoopChecks,
}

impl Convention {
    /// Every convention, reference first.
    pub const ALL: [Convention; 4] = [
        Convention::Tests,
        Convention::ZeroBased,
        Convention::WithSelection,
        Convention::LoopChecks,
    ];

    /// A short label.
    pub fn name(self) -> &'static str {
        match self {
            Convention::Tests => "tests (first test = 1; reference)",
            Convention::ZeroBased => "zero-based (hit not counted)",
            Convention::WithSelection => "tests + 1 (selection pass counted)",
            Convention::LoopChecks => "loop-condition checks",
        }
    }

    /// The count under this convention for a row that made `tests` tests and exited by a hit
    /// (`hit`) or otherwise.
    pub fn apply(self, tests: u32, hit: bool) -> u32 {
        match self {
            Convention::Tests => tests,
            Convention::ZeroBased if hit => tests.saturating_sub(1),
            Convention::ZeroBased => tests,
            Convention::WithSelection => tests + 1,
            Convention::LoopChecks if hit => tests,
            Convention::LoopChecks => tests + 1,
        }
    }
}

/// Iteration counts of one (M, k) experiment, kept apart by how each row exited so that every
/// [`Convention`] can be evaluated from one run.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct IterationStats {
    /// Row width.
    pub m: usize,
    /// k.
    pub k: usize,
    /// Rows measured.
    pub reps: u64,
    /// `hits[n]`: rows that exited by a hit (a test counted exactly k) after n tests.
    pub hits: Vec<u64>,
    /// `others[n]`: rows that exited otherwise (converged, precision, max_iter) after n tests.
    pub others: Vec<u64>,
}

impl IterationStats {
    /// Empty statistics for (m, k).
    pub fn new(m: usize, k: usize) -> Self {
        Self { m, k, reps: 0, hits: vec![0; INITIAL_BINS], others: vec![0; INITIAL_BINS] }
    }

    /// Records one row.
    pub fn record(&mut self, tests: u32, hit: bool) {
        let bins = if hit { &mut self.hits } else { &mut self.others };
        let n = tests as usize;
        if bins.len() <= n {
            bins.resize(n + 1, 0);
        }
        bins[n] += 1;
        self.reps += 1;
    }

    /// Records the outcome of a search.
    pub fn record_outcome(&mut self, o: &BisectOutcome) {
        self.record(o.iterations, o.exit == BisectExit::Hit);
    }

    /// Adds `other`'s rows (same m and k).
    pub fn merge(&mut self, other: &IterationStats) {
        for (mine, theirs) in [(&mut self.hits, &other.hits), (&mut self.others, &other.others)] {
            if mine.len() < theirs.len() {
                mine.resize(theirs.len(), 0);
            }
            mine.iter_mut().zip(theirs).for_each(|(a, b)| *a += b);
        }
        self.reps += other.reps;
    }

    /// `histogram[n]`: rows whose count is n under `conv` (no trailing zero bins).
    pub fn histogram(&self, conv: Convention) -> Vec<u64> {
        let mut h = vec![0u64; self.hits.len().max(self.others.len()) + 2];
        for (bins, hit) in [(&self.hits, true), (&self.others, false)] {
            for (n, &c) in bins.iter().enumerate() {
                h[conv.apply(n as u32, hit) as usize] += c;
            }
        }
        while h.len() > 1 && h.last() == Some(&0) {
            h.pop();
        }
        h
    }

    /// Mean count under `conv` (0 for no rows).
    pub fn mean(&self, conv: Convention) -> f64 {
        let h = self.histogram(conv);
        let total: u64 = h.iter().sum();
        if total == 0 {
            return 0.0;
        }
        h.iter().enumerate().map(|(n, &c)| n as f64 * c as f64).sum::<f64>() / total as f64
    }

    /// Sample standard deviation of the count under `conv`.
    pub fn stddev(&self, conv: Convention) -> f64 {
        let h = self.histogram(conv);
        let total: u64 = h.iter().sum();
        if total < 2 {
            return 0.0;
        }
        let mean = self.mean(conv);
        let ss: f64 =
            h.iter().enumerate().map(|(n, &c)| c as f64 * (n as f64 - mean).powi(2)).sum();
        (ss / (total - 1) as f64).sqrt()
    }

    /// Largest count under `conv` (0 for no rows).
    pub fn max(&self, conv: Convention) -> u32 {
        let h = self.histogram(conv);
        h.iter().rposition(|&c| c > 0).unwrap_or(0) as u32
    }

    /// Smallest count under `conv` (0 for no rows).
    pub fn min(&self, conv: Convention) -> u32 {
        let h = self.histogram(conv);
        h.iter().position(|&c| c > 0).unwrap_or(0) as u32
    }

    /// % of rows whose count under `conv` is `<= n`.
    pub fn cumulative_at(&self, conv: Convention, n: usize) -> f64 {
        if self.reps == 0 {
            return 0.0;
        }
        let h = self.histogram(conv);
        let below: u64 = h.iter().take(n + 1).sum();
        100.0 * below as f64 / self.reps as f64
    }

    /// docs/contract.md §4's `cumulative_percent`: entry i is the % of rows with count `<= i + 1`, up to
    /// the largest count (at least one entry).
    pub fn cumulative_percent(&self, conv: Convention) -> Vec<f64> {
        let top = self.max(conv).max(1) as usize;
        (1..=top).map(|n| self.cumulative_at(conv, n)).collect()
    }

    /// Fraction of rows that exited by a hit.
    pub fn hit_fraction(&self) -> f64 {
        if self.reps == 0 { 0.0 } else { self.hits.iter().sum::<u64>() as f64 / self.reps as f64 }
    }
}

/// The allocation-free per-row measurement (see the module docs).
#[derive(Debug, Default)]
pub struct IterationCounter {
    keys: Vec<u32>,
}

impl IterationCounter {
    /// A counter with no buffer yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Converts `row` to largest-mode keys in the reused buffer; returns the keys and their
    /// range. `row` must not be empty.
    pub fn load(&mut self, row: &[f32]) -> (&[u32], (u32, u32)) {
        if self.keys.len() < row.len() {
            self.keys.resize(row.len(), 0);
        }
        let keys = &mut self.keys[..row.len()];
        let range = keys_and_range_into(row, Mode::Largest, keys);
        (keys, range)
    }

    /// The reference search of `row` for each k of `ks`; `visit(j, outcome)` receives the
    /// outcome for `ks[j]` (`None` for k = 0, which makes no test, as in the driver).
    pub fn search_each(
        &mut self,
        row: &[f32],
        ks: &[usize],
        bisect: &Bisect,
        mut visit: impl FnMut(usize, Option<BisectOutcome>),
    ) {
        let (keys, range) = self.load(row);
        for (j, &k) in ks.iter().enumerate() {
            visit(j, (k > 0).then(|| bisect.search_in_range(keys, range, k)));
        }
    }

    /// The reference iteration count of `row` for one k (docs/contract.md §3).
    pub fn iterations(&mut self, row: &[f32], k: usize, bisect: &Bisect) -> u32 {
        let mut n = 0;
        self.search_each(row, &[k], bisect, |_, o| n = o.map_or(0, |o| o.iterations));
        n
    }
}

/// One iteration-count experiment: rows of width `m`, every k of `ks` on the same rows.
#[derive(Clone, Debug, PartialEq)]
pub struct SimSpec {
    /// Row width.
    pub m: usize,
    /// The k values (each measured on every row).
    pub ks: Vec<usize>,
    /// Rows.
    pub reps: usize,
    /// The algorithm: exact, with a precision, or early stopping.
    pub bisect: Bisect,
}

impl SimSpec {
    /// Checks the parameters (no experiment runs on bad ones).
    pub fn validate(&self) -> Result<(), AnalysisError> {
        check_width(self.m)?;
        if let Some(&k) = self.ks.iter().find(|&&k| k > self.m) {
            return Err(AnalysisError::KTooLarge { k, m: self.m });
        }
        if self.reps == 0 {
            return Err(AnalysisError::ZeroReps);
        }
        check_size(self.reps, self.m)?;
        if self.bisect.validate().is_err() {
            return Err(AnalysisError::BadPrecision(self.bisect.precision));
        }
        match self.bisect.max_iter {
            Some(n) if n > MAX_STATS_ITER => {
                Err(AnalysisError::MaxIterTooLarge { got: n, max: MAX_STATS_ITER })
            }
            _ => Ok(()),
        }
    }
}

/// Checks a row width against [`MAX_SIM_WIDTH`].
pub fn check_width(m: usize) -> Result<(), AnalysisError> {
    if m == 0 || m > MAX_SIM_WIDTH {
        return Err(AnalysisError::BadWidth { m, max: MAX_SIM_WIDTH });
    }
    Ok(())
}

/// Checks `reps` rows of width `m` against [`MAX_SIM_VALUES`] (with checked multiplication).
pub fn check_size(reps: usize, m: usize) -> Result<(), AnalysisError> {
    let values = (reps as u64).checked_mul(m as u64);
    if values.is_none_or(|v| v > MAX_SIM_VALUES) {
        return Err(AnalysisError::TooManyValues { reps, m, max: MAX_SIM_VALUES });
    }
    Ok(())
}

/// Per-thread buffers of [`simulate`].
struct Worker {
    row: Vec<f32>,
    counter: IterationCounter,
}

/// Runs `spec` on rows from `source`; one [`IterationStats`] per k, in `spec.ks` order.
/// `progress` (if any) advances by one per row. Memory does not grow with `spec.reps`: each
/// thread folds its tasks into one set of histograms (exact integer counts, so the merge order
/// does not matter).
pub fn simulate(
    source: &RowSource<'_>,
    spec: &SimSpec,
    progress: Option<&ProgressBar>,
) -> Result<Vec<IterationStats>, AnalysisError> {
    spec.validate()?;
    if source.available_rows().is_some_and(|n| n < spec.reps) {
        return Err(AnalysisError::NoRows);
    }
    let tasks = spec.reps.div_ceil(ROWS_PER_TASK);
    let empty = || spec.ks.iter().map(|&k| IterationStats::new(spec.m, k)).collect::<Vec<_>>();
    let merge = |mut a: Vec<IterationStats>, b: Vec<IterationStats>| {
        a.iter_mut().zip(&b).for_each(|(a, b)| a.merge(b));
        a
    };
    let total = (0..tasks)
        .into_par_iter()
        .map_init(
            || Worker { row: vec![0.0; spec.m], counter: IterationCounter::new() },
            |w, t| {
                let mut stats = empty();
                let rows = t * ROWS_PER_TASK..((t + 1) * ROWS_PER_TASK).min(spec.reps);
                let n = rows.len() as u64;
                for r in rows {
                    let row = source.row(r, &mut w.row);
                    w.counter.search_each(row, &spec.ks, &spec.bisect, |j, o| match o {
                        Some(o) => stats[j].record_outcome(&o),
                        None => stats[j].record(0, false),
                    });
                }
                if let Some(p) = progress {
                    p.inc(n);
                }
                stats
            },
        )
        .reduce(empty, merge);
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conventions_shift_hits_and_other_exits_differently() {
        let mut s = IterationStats::new(8, 2);
        s.record(3, true);
        s.record(5, false);
        assert_eq!(s.mean(Convention::Tests), 4.0);
        assert_eq!(s.mean(Convention::ZeroBased), 3.5);
        assert_eq!(s.mean(Convention::WithSelection), 5.0);
        assert_eq!(s.mean(Convention::LoopChecks), 4.5);
        assert_eq!(s.cumulative_percent(Convention::Tests), vec![0.0, 0.0, 50.0, 50.0, 100.0]);
        assert_eq!((s.min(Convention::Tests), s.max(Convention::Tests)), (3, 5));
    }

    #[test]
    fn simulation_is_independent_of_the_thread_count() {
        let spec = SimSpec { m: 200, ks: vec![1, 20, 100], reps: 500, bisect: Bisect::exact() };
        let src = RowSource::Dist { dist: Family::Laplace, seed: 9, stream: 1 };
        let run = |threads| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| simulate(&src, &spec, None).unwrap())
        };
        let one = run(1);
        assert_eq!(one, run(3));
        assert_eq!(one[0].reps, 500);
    }

    #[test]
    fn bad_parameters_are_errors() {
        let src = RowSource::Dist { dist: Family::Normal, seed: 0, stream: 0 };
        let spec = |m, k, reps| SimSpec { m, ks: vec![k], reps, bisect: Bisect::exact() };
        assert!(matches!(
            simulate(&src, &spec(8, 9, 1), None),
            Err(AnalysisError::KTooLarge { .. })
        ));
        assert!(matches!(simulate(&src, &spec(8, 1, 0), None), Err(AnalysisError::ZeroReps)));
        assert!(matches!(
            simulate(&src, &spec(0, 0, 1), None),
            Err(AnalysisError::BadWidth { .. })
        ));
        let mut s = spec(8, 1, 1);
        s.bisect.precision = -1.0;
        assert!(matches!(simulate(&src, &s, None), Err(AnalysisError::BadPrecision(_))));
        s.bisect = Bisect::early_stopping(MAX_STATS_ITER + 1);
        assert!(matches!(simulate(&src, &s, None), Err(AnalysisError::MaxIterTooLarge { .. })));
        // Sizes are refused before anything runs or is allocated.
        for (m, reps) in [(256, 1_000_000_000_000), (MAX_SIM_WIDTH, usize::MAX)] {
            assert!(matches!(
                simulate(&src, &spec(m, 4, reps), None),
                Err(AnalysisError::TooManyValues { .. })
            ));
        }
    }
}
