//! Early stopping (Algorithm 2) against the optimal selection: the measurements of Table 2.
//!
//! For each row, k and `max_iter` the early-stopping selection is compared with the canonical
//! (optimal) top-k:
//!
//! * **Hit** — the overlap ratio `|ES ∩ opt| / k`, i.e. recall (averaged over rows);
//! * **E1** — the relative error between the largest element of the ES selection and the
//!   largest of the optimal selection (the row maximum);
//! * **E2** — the same for the smallest elements (the optimal one is the k-th largest value).
//!
//! Table 2 does not say how "average relative error" is normalised, so every plausible
//! normalisation ([`ErrorNorm`]) is accumulated in one pass and the report shows them all.
//!
//! Two versions of Algorithm 2 are measured ([`Algorithm2`]): the one paper 003 prints (the
//! reference, `topk_ref`'s `Bisect::early_stopping`), and the earlier paper's (000), whose loop
//! has a three-way branch that *breaks* when a test counts exactly k — leaving `min` where it
//! was — before the same `{v ≥ min}` first-k selection.

use indicatif::ProgressBar;
use rayon::prelude::*;
use topk_ref::bisect::{count_at_least, midpoint};
use topk_ref::order::{key_of_ordered, ordered_value_of_key};
use topk_ref::select::select_in_index_order;
use topk_ref::{Bisect, BisectOutcome};

use crate::error::AnalysisError;
use crate::montecarlo::{IterationCounter, ROWS_PER_TASK, RowSource, check_width};

/// Which Algorithm 2 selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Algorithm2 {
    /// Paper 003's Algorithm 2 as written: `cnt < k → max = thres`, else `min = thres`, for
    /// exactly max_iter steps (topk_ref's `Bisect::early_stopping`; the reference).
    AsWritten,
    /// Paper 000's Algorithm 2 (the earlier variant, labelled as such): `cnt < k → max`,
    /// `cnt > k → min`, `cnt == k → break` (min is left where it was). Analysis-only.
    Earlier,
}

impl Algorithm2 {
    /// Both versions, reference first.
    pub const ALL: [Algorithm2; 2] = [Algorithm2::AsWritten, Algorithm2::Earlier];

    /// A short label.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm2::AsWritten => "Algorithm 2 as written (paper 003; reference)",
            Algorithm2::Earlier => "earlier Algorithm 2 (paper 000: break on cnt == k)",
        }
    }

    /// A one-word id for files.
    pub fn id(self) -> &'static str {
        match self {
            Algorithm2::AsWritten => "as_written",
            Algorithm2::Earlier => "earlier",
        }
    }
}

/// How a difference `got − want` becomes a relative error (all in %).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum ErrorNorm {
    /// Mean over rows of `|got − want| / |want|` — the literal reading of Table 2's caption.
    PerRow,
    /// `Σ|got − want| / Σ|want|` — a ratio of means.
    RatioOfMeans,
    /// Mean over rows of `(got − want) / |want|` (signed; errors of both signs cancel).
    Signed,
    /// Mean over rows of `|got − want| / |row max|` — scaled like Algorithm 1's `ε'·max`.
    RowMax,
    /// Mean over rows of `|got − want| / (row max − row min)`.
    RowRange,
}

impl ErrorNorm {
    /// Every normalisation, the literal reading first.
    pub const ALL: [ErrorNorm; 5] = [
        ErrorNorm::PerRow,
        ErrorNorm::RatioOfMeans,
        ErrorNorm::Signed,
        ErrorNorm::RowMax,
        ErrorNorm::RowRange,
    ];

    /// A short label.
    pub fn name(self) -> &'static str {
        match self {
            ErrorNorm::PerRow => "mean |a−b|/|b| (per row)",
            ErrorNorm::RatioOfMeans => "Σ|a−b| / Σ|b|",
            ErrorNorm::Signed => "mean (a−b)/|b| (signed)",
            ErrorNorm::RowMax => "mean |a−b|/|row max|",
            ErrorNorm::RowRange => "mean |a−b|/(max−min)",
        }
    }

    /// A one-word id for files.
    pub fn id(self) -> &'static str {
        match self {
            ErrorNorm::PerRow => "per_row",
            ErrorNorm::RatioOfMeans => "ratio_of_means",
            ErrorNorm::Signed => "signed",
            ErrorNorm::RowMax => "row_max",
            ErrorNorm::RowRange => "row_range",
        }
    }
}

/// A running sum and sum of squares.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Moments {
    /// Σx.
    pub sum: f64,
    /// Σx².
    pub sq: f64,
    /// Terms added.
    pub n: u64,
}

impl Moments {
    fn add(&mut self, x: f64) {
        self.sum += x;
        self.sq += x * x;
        self.n += 1;
    }

    fn merge(&mut self, o: &Moments) {
        self.sum += o.sum;
        self.sq += o.sq;
        self.n += o.n;
    }

    /// The mean (0 with no terms).
    pub fn mean(&self) -> f64 {
        if self.n == 0 { 0.0 } else { self.sum / self.n as f64 }
    }

    /// The standard error of the mean.
    pub fn stderr(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        let n = self.n as f64;
        let var = ((self.sq - self.sum * self.sum / n) / (n - 1.0)).max(0.0);
        (var / n).sqrt()
    }
}

/// The accumulated error of one extreme (max → E1, min → E2) in every normalisation.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct ErrorSums {
    /// `|a − b| / |b|` per row (rows with `b == 0` are left out and counted in `zero_ref`).
    pub per_row: Moments,
    /// `(a − b) / |b|` per row (same rows).
    pub signed: Moments,
    /// `|a − b|` per row.
    pub abs_diff: Moments,
    /// `|b|` per row.
    pub abs_ref: Moments,
    /// `|a − b| / |row max|` per row.
    pub row_max: Moments,
    /// `|a − b| / (max − min)` per row.
    pub row_range: Moments,
    /// Rows whose reference value is exactly 0 (no per-row relative error exists).
    pub zero_ref: u64,
}

impl ErrorSums {
    fn add(&mut self, got: f64, want: f64, row_max: f64, row_range: f64) {
        let d = got - want;
        if want != 0.0 {
            self.per_row.add(d.abs() / want.abs());
            self.signed.add(d / want.abs());
        } else {
            self.zero_ref += 1;
        }
        self.abs_diff.add(d.abs());
        self.abs_ref.add(want.abs());
        if row_max != 0.0 {
            self.row_max.add(d.abs() / row_max.abs());
        }
        if row_range > 0.0 {
            self.row_range.add(d.abs() / row_range);
        }
    }

    fn merge(&mut self, o: &ErrorSums) {
        for (a, b) in [
            (&mut self.per_row, &o.per_row),
            (&mut self.signed, &o.signed),
            (&mut self.abs_diff, &o.abs_diff),
            (&mut self.abs_ref, &o.abs_ref),
            (&mut self.row_max, &o.row_max),
            (&mut self.row_range, &o.row_range),
        ] {
            a.merge(b);
        }
        self.zero_ref += o.zero_ref;
    }

    /// The error in % under `norm`.
    pub fn percent(&self, norm: ErrorNorm) -> f64 {
        100.0
            * match norm {
                ErrorNorm::PerRow => self.per_row.mean(),
                ErrorNorm::Signed => self.signed.mean(),
                ErrorNorm::RowMax => self.row_max.mean(),
                ErrorNorm::RowRange => self.row_range.mean(),
                ErrorNorm::RatioOfMeans => ratio(self.abs_diff.sum, self.abs_ref.sum),
            }
    }

    /// The standard error of [`ErrorSums::percent`] (for the ratio of means: the numerator's
    /// standard error over the denominator's mean, a first-order approximation).
    pub fn stderr_percent(&self, norm: ErrorNorm) -> f64 {
        100.0
            * match norm {
                ErrorNorm::PerRow => self.per_row.stderr(),
                ErrorNorm::Signed => self.signed.stderr(),
                ErrorNorm::RowMax => self.row_max.stderr(),
                ErrorNorm::RowRange => self.row_range.stderr(),
                ErrorNorm::RatioOfMeans => ratio(self.abs_diff.stderr(), self.abs_ref.mean()),
            }
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b == 0.0 { f64::NAN } else { a / b }
}

/// Everything measured for one (k, max_iter, algorithm).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct EarlyCell {
    /// k.
    pub k: usize,
    /// Algorithm 2's max_iter.
    pub max_iter: u32,
    /// Which Algorithm 2.
    pub algorithm: Algorithm2,
    /// Recall (overlap ratio) per row.
    pub recall: Moments,
    /// E1: the selections' largest elements.
    pub e1: ErrorSums,
    /// E2: the selections' smallest elements.
    pub e2: ErrorSums,
}

impl EarlyCell {
    fn new(k: usize, max_iter: u32, algorithm: Algorithm2) -> Self {
        Self {
            k,
            max_iter,
            algorithm,
            recall: Moments::default(),
            e1: ErrorSums::default(),
            e2: ErrorSums::default(),
        }
    }

    fn merge(&mut self, o: &EarlyCell) {
        self.recall.merge(&o.recall);
        self.e1.merge(&o.e1);
        self.e2.merge(&o.e2);
    }

    /// Hit (%) = mean recall.
    pub fn hit_percent(&self) -> f64 {
        100.0 * self.recall.mean()
    }
}

/// An early-stopping experiment: every (k, max_iter, algorithm) on the same rows.
#[derive(Clone, Debug, PartialEq)]
pub struct EarlySpec {
    /// Row width.
    pub m: usize,
    /// k values (each `1 ..= m`).
    pub ks: Vec<usize>,
    /// max_iter values.
    pub max_iters: Vec<u32>,
    /// Algorithms.
    pub algorithms: Vec<Algorithm2>,
    /// Rows.
    pub reps: usize,
}

impl EarlySpec {
    fn validate(&self) -> Result<(), AnalysisError> {
        check_width(self.m)?;
        if let Some(&k) = self.ks.iter().find(|&&k| k > self.m || k == 0) {
            return Err(AnalysisError::KTooLarge { k, m: self.m });
        }
        if self.reps == 0 {
            return Err(AnalysisError::ZeroReps);
        }
        crate::montecarlo::check_size(self.reps, self.m)
    }

    fn empty_cells(&self) -> Vec<EarlyCell> {
        let mut cells = Vec::new();
        for &k in &self.ks {
            for &n in &self.max_iters {
                for &a in &self.algorithms {
                    cells.push(EarlyCell::new(k, n, a));
                }
            }
        }
        cells
    }
}

/// The lower bound `min` (as a key) after the earlier paper's Algorithm 2 ran `n` steps.
///
/// Value midpoints on finite rows, key midpoints otherwise (as topk-ref does), so that it
/// differs from the reference only in the loop's three-way branch.
pub fn earlier_algorithm2_lo(keys: &[u32], range: (u32, u32), k: usize, n: u32) -> u32 {
    let (mut lo_key, mut hi_key) = range;
    let mut lo = ordered_value_of_key(lo_key);
    let mut hi = ordered_value_of_key(hi_key);
    let finite = lo.is_finite() && hi.is_finite();
    for _ in 0..n {
        let (thres, t) = if finite {
            let thres = midpoint(lo, hi);
            (thres, key_of_ordered(thres))
        } else {
            (f32::NAN, lo_key + (hi_key - lo_key) / 2)
        };
        let cnt = count_at_least(keys, t);
        if cnt < k {
            (hi, hi_key) = (thres, t);
        } else if cnt > k {
            (lo, lo_key) = (thres, t);
        } else {
            break;
        }
    }
    lo_key
}

/// Per-thread buffers: the row, its keys, the two selections and the membership stamps.
struct Worker {
    row: Vec<f32>,
    counter: IterationCounter,
    opt: Vec<u32>,
    es: Vec<u32>,
    stamp: Vec<u32>,
    generation: u32,
}

impl Worker {
    fn new(m: usize, kmax: usize) -> Self {
        Self {
            row: vec![0.0; m],
            counter: IterationCounter::new(),
            opt: vec![0; kmax],
            es: vec![0; kmax],
            stamp: vec![0; m],
            generation: 0,
        }
    }
}

/// A fresh membership generation (the stamps are cleared when the counter wraps), so that
/// marking the optimal set never needs a pass to clear the previous row's marks.
fn next_generation(stamp: &mut [u32], generation: &mut u32) -> u32 {
    *generation = generation.wrapping_add(1);
    if *generation == 0 {
        stamp.fill(0);
        *generation = 1;
    }
    *generation
}

/// The largest and smallest key among `keys[idx]`.
fn key_extremes(keys: &[u32], idx: &[u32]) -> (u32, u32) {
    idx.iter().fold((0, u32::MAX), |(hi, lo), &i| {
        let key = keys[i as usize];
        (hi.max(key), lo.min(key))
    })
}

/// Measures one row into `cells` (laid out as [`EarlySpec::empty_cells`]).
fn measure_row(
    spec: &EarlySpec,
    w: &mut Worker,
    r: usize,
    source: &RowSource<'_>,
    cells: &mut [EarlyCell],
) {
    let Worker { row, counter, opt, es, stamp, generation } = w;
    let row = source.row(r, row);
    let (keys, range) = counter.load(row);
    let row_max = f64::from(ordered_value_of_key(range.1));
    let row_range = row_max - f64::from(ordered_value_of_key(range.0));
    let mut cell = 0;
    for &k in &spec.ks {
        let exact = Bisect::exact().search_in_range(keys, range, k);
        Bisect::select_from(keys, k, &exact, &mut opt[..k]);
        let g = next_generation(stamp, generation);
        opt[..k].iter().for_each(|&i| stamp[i as usize] = g);
        let (opt_hi, opt_lo) = key_extremes(keys, &opt[..k]);
        let want =
            (f64::from(ordered_value_of_key(opt_hi)), f64::from(ordered_value_of_key(opt_lo)));
        for &n in &spec.max_iters {
            for &alg in &spec.algorithms {
                select_early(alg, keys, range, k, n, &mut es[..k]);
                let hits = es[..k].iter().filter(|&&i| stamp[i as usize] == g).count();
                let (es_hi, es_lo) = key_extremes(keys, &es[..k]);
                let c = &mut cells[cell];
                c.recall.add(hits as f64 / k as f64);
                c.e1.add(f64::from(ordered_value_of_key(es_hi)), want.0, row_max, row_range);
                c.e2.add(f64::from(ordered_value_of_key(es_lo)), want.1, row_max, row_range);
                cell += 1;
            }
        }
    }
}

/// The early-stopping selection of `alg` with `n` steps, into `out` (ascending index order).
pub fn select_early(
    alg: Algorithm2,
    keys: &[u32],
    range: (u32, u32),
    k: usize,
    n: u32,
    out: &mut [u32],
) {
    match alg {
        Algorithm2::AsWritten => {
            let o: BisectOutcome = Bisect::early_stopping(n).search_in_range(keys, range, k);
            Bisect::select_from(keys, k, &o, out);
        }
        Algorithm2::Earlier => {
            let lo = earlier_algorithm2_lo(keys, range, k, n);
            select_in_index_order(keys, u32::MAX, lo, 0, k, out);
        }
    }
}

/// Tasks whose partial results are held at once by [`run_early`].
const TASKS_PER_BATCH: usize = 4096;

/// Runs `spec` on rows from `source`; cells are ordered by k, then max_iter, then algorithm.
pub fn run_early(
    source: &RowSource<'_>,
    spec: &EarlySpec,
    progress: Option<&ProgressBar>,
) -> Result<Vec<EarlyCell>, AnalysisError> {
    spec.validate()?;
    if source.available_rows().is_some_and(|n| n < spec.reps) {
        return Err(AnalysisError::NoRows);
    }
    let kmax = spec.ks.iter().copied().max().unwrap_or(0);
    let tasks = spec.reps.div_ceil(ROWS_PER_TASK);
    let mut total = spec.empty_cells();
    // Tasks run in parallel a batch at a time and are summed in task order, so floating-point
    // totals do not depend on the thread count, and memory does not grow with `spec.reps`.
    for batch in (0..tasks).step_by(TASKS_PER_BATCH) {
        let partials: Vec<Vec<EarlyCell>> = (batch..(batch + TASKS_PER_BATCH).min(tasks))
            .into_par_iter()
            .map_init(
                || Worker::new(spec.m, kmax),
                |w, t| {
                    let mut cells = spec.empty_cells();
                    let rows = t * ROWS_PER_TASK..((t + 1) * ROWS_PER_TASK).min(spec.reps);
                    let n = rows.len() as u64;
                    for r in rows {
                        measure_row(spec, w, r, source, &mut cells);
                    }
                    if let Some(p) = progress {
                        p.inc(n);
                    }
                    cells
                },
            )
            .collect();
        for part in &partials {
            total.iter_mut().zip(part).for_each(|(a, b)| a.merge(b));
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use topk_ref::Family;
    use topk_ref::oracle::{canonical_indices, recall};
    use topk_ref::order::key_largest;
    use topk_ref::{Mode, Options, topk_row};

    #[test]
    fn as_written_matches_the_reference_driver() {
        let row: Vec<f32> = (0..97).map(|i| ((i * 53) % 89) as f32 * 0.25 - 7.0).collect();
        let keys: Vec<u32> = row.iter().map(|&v| key_largest(v)).collect();
        let range = topk_ref::bisect::key_range(&keys);
        for k in [1, 10, 50] {
            for n in 0..10 {
                let mut out = vec![0; k];
                select_early(Algorithm2::AsWritten, &keys, range, k, n, &mut out);
                let want =
                    topk_row(&Bisect::early_stopping(n), &row, k, Options::default()).unwrap();
                assert_eq!(out, want.indices, "k={k} n={n}");
            }
        }
    }

    #[test]
    fn earlier_variant_stops_on_an_exact_count_and_keeps_min() {
        // min 0, max 8: thres 4 counts {5, 8} = k = 2 → break with min still 0, so the
        // selection is the first two indices of the whole row.
        let row = [0.0f32, 5.0, 1.0, 8.0, 2.0];
        let keys: Vec<u32> = row.iter().map(|&v| key_largest(v)).collect();
        let range = topk_ref::bisect::key_range(&keys);
        let mut out = [0u32; 2];
        select_early(Algorithm2::Earlier, &keys, range, 2, 3, &mut out);
        assert_eq!(out, [0, 1]);
        select_early(Algorithm2::AsWritten, &keys, range, 2, 3, &mut out);
        assert_eq!(out, [1, 3]);
    }

    #[test]
    fn recall_and_errors_match_a_direct_computation() {
        let spec = EarlySpec {
            m: 64,
            ks: vec![8],
            max_iters: vec![3],
            algorithms: vec![Algorithm2::AsWritten],
            reps: 50,
        };
        let src = RowSource::Dist { dist: Family::Normal, seed: 3, stream: 5 };
        let cells = run_early(&src, &spec, None).unwrap();
        let (mut rec, mut e1) = (0.0, 0.0);
        let mut buf = vec![0.0f32; 64];
        for r in 0..50 {
            let row = src.row(r, &mut buf).to_vec();
            let es = topk_row(&Bisect::early_stopping(3), &row, 8, Options::default()).unwrap();
            let opt = canonical_indices(&row, 8, Mode::Largest);
            rec += recall(&es.indices, &opt);
            let max = |idx: &[u32]| idx.iter().map(|&i| row[i as usize]).fold(f32::MIN, f32::max);
            let (a, b) = (f64::from(max(&es.indices)), f64::from(max(&opt)));
            e1 += (a - b).abs() / b.abs();
        }
        assert!((cells[0].hit_percent() - 100.0 * rec / 50.0).abs() < 1e-9);
        assert!((cells[0].e1.percent(ErrorNorm::PerRow) - 100.0 * e1 / 50.0).abs() < 1e-9);
    }
}
