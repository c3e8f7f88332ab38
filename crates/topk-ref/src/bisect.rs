//! `bisect` — RTop-K's binary search on the value threshold (paper 003, Algorithms 1 and 2).
//!
//! # Idea
//! The k-th largest value `T` of a row is the only threshold `t` at which
//! `cnt(t) = |{i : v_i >= t}|` crosses k. Start from `lo = min(v)`, `hi = max(v)`, test the
//! midpoint, keep the half that still brackets `T`, stop when a test counts exactly k
//! (*hit*) or when the bracket cannot shrink (*converged*). Then one pass selects, in index
//! order, every element `>= hi` plus the first elements of the band `[lo, hi)` that are
//! needed to reach k — RTop-K's two-condition selection (§3.2, "Selecting stage").
//!
//! # Exactly what runs (the simulator and the CUDA kernel mirror this, step for step)
//! Elements are compared through their order keys ([`crate::order::key`]); thresholds are
//! computed on *ordered values* (`v`, or `-v` in smallest mode).
//!
//! **Exact mode** (Algorithm 1, precision ε' ≥ 0, default 0):
//! 1. `lo_key, hi_key` = min and max key. Equal → converged, 0 iterations.
//! 2. *Value phase*, while both bounds are finite numbers and fewer than
//!    [`VALUE_PHASE_LIMIT`] tests were made, and `hi - lo > ε` (ε = ε'·|max| as in the
//!    paper's line 3, or ε' itself with [`EpsilonMode::Absolute`]):
//!    `thres = (lo + hi) * 0.5` in f32 (if that overflows, `lo * 0.5 + hi * 0.5`).
//!    If `thres` is not strictly inside the bracket (adjacent floats), the value phase ends.
//!    Otherwise it is a test — one iteration (SPEC §3): `cnt = cnt(thres)`;
//!    `cnt < k → hi = thres`; `cnt > k → lo = thres`; `cnt == k → hit`.
//!    Leaving the loop because `hi - lo <= ε` ends the search (ε > 0 only: approximate).
//! 3. *Key phase*, only where the value phase cannot proceed — a bound is `±inf` or NaN, the
//!    float midpoint stalls, or the value budget is spent: the same test and update on the
//!    integer key midpoint `lo_key + (hi_key - lo_key) / 2`, until the keys are adjacent.
//!
//! On rows of finite values with ε' = 0 and no pathological spread, only the value phase
//! runs: it is the paper's Algorithm 1 with its iteration statistics (Tables 1 and 5).
//!
//! **Early stopping** (Algorithm 2, `max_iter = n`): exactly `n` two-way steps
//! (`cnt < k → hi = thres`, else `lo = thres`), value midpoints on finite rows, key
//! midpoints where a bound is not finite, then the first k indices with `v >= lo`.
//! The reported iteration count is `n`. (Once the bracket stops moving the remaining steps
//! are identical no-ops, so they are skipped — the result is the same.)
//!
//! # Cost
//! Time O(M · iterations): one counting pass per test plus a min/max pass and one selection
//! pass; exact mode makes at most [`MAX_ITERATIONS`] = 64 tests on *any* row — at most
//! [`VALUE_PHASE_LIMIT`] = 32 value tests, then at most 32 key tests, since each key test
//! halves an interval of at most 2^32 keys. Normal rows need ~8–13 (paper Table 5).
//! Extra memory: M keys (`u32`) in the scratch.
//!
//! # On a GPU warp
//! This is RTop-K's own design (§3.2): a warp loads the row (the loading stage), each test is a
//! per-lane count + a `log2 32` shuffle reduction broadcast to all lanes (the searching stage),
//! and the final pass is a ballot + popc prefix over chunks of 32 (the selecting stage). Every
//! lane runs the same bracket updates, so the warp never diverges; the search touches only
//! shared memory or registers.

use crate::algorithm::{RowStats, RowTopK, Scratch, WorkCounters, grow, selection_reads};
use crate::error::TopKError;
use crate::order::{Mode, key_of_ordered, keys_and_range_into, ordered_value_of_key};
use crate::select::select_in_index_order;

/// Value-space tests allowed before the search moves to the key phase.
pub const VALUE_PHASE_LIMIT: u32 = 32;
/// Upper bound on the iterations of exact mode, on any row: [`VALUE_PHASE_LIMIT`] value tests
/// plus at most 32 key tests.
pub const MAX_ITERATIONS: u32 = VALUE_PHASE_LIMIT + 32;

/// How Algorithm 1's precision ε' becomes the stopping width ε.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EpsilonMode {
    /// `ε = ε' · |max|`, the paper's line 3 (`ε ← ε'·max`; the absolute value keeps the
    /// width meaningful on rows whose maximum is negative).
    #[default]
    RelativeToMax,
    /// `ε = ε'`.
    Absolute,
}

/// RTop-K's bisection: exact (Algorithm 1, ε' = 0 by default), Algorithm 1 with precision
/// ε' > 0, or early stopping (Algorithm 2) when `max_iter` is set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bisect {
    /// Algorithm 1's precision ε' (0 = exact).
    pub precision: f32,
    /// How ε' is turned into a width.
    pub epsilon_mode: EpsilonMode,
    /// `Some(n)`: Algorithm 2 with `max_iter = n` (precision is then unused).
    pub max_iter: Option<u32>,
}

impl Default for Bisect {
    fn default() -> Self {
        Self::exact()
    }
}

/// Why the search stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BisectExit {
    /// A test counted exactly k elements `>= hi`.
    Hit,
    /// The bracket cannot shrink: `hi_key - lo_key <= 1` (or the row is constant).
    Converged,
    /// `hi - lo <= ε` with ε > 0 (Algorithm 1 with a precision; approximate).
    Precision,
    /// Algorithm 2 ran its `max_iter` steps.
    MaxIter,
}

/// The state a search ends in; [`Bisect::select_from`] turns it into the selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BisectOutcome {
    /// Iterations (threshold tests, SPEC §3).
    pub iterations: u32,
    /// How many of those were key-phase tests.
    pub key_phase_iterations: u32,
    /// Key of the lower bound `lo` (`cnt(lo) >= k`).
    pub lo_key: u32,
    /// Key of the upper bound `hi`.
    pub hi_key: u32,
    /// `cnt(hi)`, when `hi` was set by a test (it is `< k` then, or `== k` on a hit).
    pub count_at_hi: Option<usize>,
    /// Why the search stopped.
    pub exit: BisectExit,
}

/// The midpoint Algorithms 1 and 2 use: `(lo + hi) / 2` in f32, without overflowing.
///
/// `(lo + hi) * 0.5` is what the paper computes; it is replaced by `lo * 0.5 + hi * 0.5` only
/// when the sum overflows (both bounds near ±FLT_MAX), where the paper's formula would give inf.
#[inline]
pub fn midpoint(lo: f32, hi: f32) -> f32 {
    let m = (lo + hi) * 0.5;
    if m.is_finite() { m } else { lo * 0.5 + hi * 0.5 }
}

/// `|{i : keys[i] >= t}|` — the counting pass of one test.
#[inline]
pub fn count_at_least(keys: &[u32], t: u32) -> usize {
    // u32 lanes and a fixed-width accumulator let LLVM vectorise the compare-and-add.
    keys.iter().map(|&x| u32::from(x >= t)).sum::<u32>() as usize
}

/// The smallest and largest key of a non-empty row.
#[inline]
pub fn key_range(keys: &[u32]) -> (u32, u32) {
    keys.iter().fold((u32::MAX, 0), |(lo, hi), &x| (lo.min(x), hi.max(x)))
}

/// Mutable bracket of a search, in keys and (while they are numbers) in ordered values.
struct Bracket {
    lo_key: u32,
    hi_key: u32,
    count_at_hi: Option<usize>,
    iterations: u32,
}

/// The three-way update of Algorithm 1 after counting `cnt` at threshold key `t`.
/// Returns `true` on a hit.
#[inline]
fn update_exact(b: &mut Bracket, t: u32, cnt: usize, k: usize) -> bool {
    b.iterations += 1;
    if cnt < k {
        b.hi_key = t;
        b.count_at_hi = Some(cnt);
    } else if cnt > k {
        b.lo_key = t;
    } else {
        b.hi_key = t;
        b.count_at_hi = Some(cnt);
        return true;
    }
    false
}

impl Bisect {
    /// Exact Algorithm 1 (ε' = 0).
    pub const fn exact() -> Self {
        Self { precision: 0.0, epsilon_mode: EpsilonMode::RelativeToMax, max_iter: None }
    }

    /// Algorithm 1 with precision ε' (relative to the row maximum, as in the paper).
    pub fn with_precision(precision: f32) -> Result<Self, TopKError> {
        let b = Self { precision, ..Self::exact() };
        b.validate()?;
        Ok(b)
    }

    /// Algorithm 2 (early stopping) with `max_iter` steps.
    pub const fn early_stopping(max_iter: u32) -> Self {
        Self { max_iter: Some(max_iter), ..Self::exact() }
    }

    /// Checks the parameters: the precision must be a finite number `>= 0`.
    pub fn validate(&self) -> Result<(), TopKError> {
        if !(self.precision.is_finite() && self.precision >= 0.0) {
            return Err(TopKError::InvalidParameter {
                name: "precision",
                reason: format!("must be a finite number >= 0, got {}", self.precision),
            });
        }
        Ok(())
    }

    /// Runs the search on the keys of one row (`1 <= k <= keys.len()`).
    pub fn search(&self, keys: &[u32], k: usize) -> BisectOutcome {
        self.search_in_range(keys, key_range(keys), k)
    }

    /// [`Bisect::search`] when the key range `(min, max)` is already known.
    pub fn search_in_range(&self, keys: &[u32], range: (u32, u32), k: usize) -> BisectOutcome {
        match self.max_iter {
            Some(n) => search_early_stopping(keys, range, k, n),
            None => self.search_exact(keys, range, k),
        }
    }

    /// Writes the selection that `outcome` describes into `out` (ascending index order).
    pub fn select_from(keys: &[u32], k: usize, outcome: &BisectOutcome, out: &mut [u32]) {
        let b = outcome;
        if b.exit == BisectExit::MaxIter {
            // Algorithm 2, line 12: the first k of {v >= min}.
            select_in_index_order(keys, u32::MAX, b.lo_key, 0, k, out);
            return;
        }
        let at_hi = b.count_at_hi.unwrap_or_else(|| count_at_least(keys, b.hi_key));
        if at_hi >= k {
            // hi was never lowered and ties at the maximum fill k: the first k of them.
            select_in_index_order(keys, u32::MAX, b.hi_key, 0, k, out);
        } else {
            // hi_key > lo_key >= 0 here, so hi_key - 1 does not wrap.
            select_in_index_order(keys, b.hi_key - 1, b.lo_key, at_hi, k, out);
        }
    }

    fn search_exact(&self, keys: &[u32], range: (u32, u32), k: usize) -> BisectOutcome {
        let (lo_key, hi_key) = range;
        let mut b = Bracket { lo_key, hi_key, count_at_hi: None, iterations: 0 };
        if lo_key == hi_key {
            return finish(b, 0, BisectExit::Converged);
        }
        if let Some(exit) = self.value_phase(keys, k, &mut b) {
            return finish(b, 0, exit);
        }
        let value_iterations = b.iterations;
        while b.hi_key - b.lo_key > 1 {
            let t = b.lo_key + (b.hi_key - b.lo_key) / 2;
            if update_exact(&mut b, t, count_at_least(keys, t), k) {
                return finish(b, value_iterations, BisectExit::Hit);
            }
        }
        finish(b, value_iterations, BisectExit::Converged)
    }

    /// The paper's value-space loop. `Some(exit)` ends the search; `None` hands the bracket
    /// to the key phase.
    fn value_phase(&self, keys: &[u32], k: usize, b: &mut Bracket) -> Option<BisectExit> {
        let mut lo = ordered_value_of_key(b.lo_key);
        let mut hi = ordered_value_of_key(b.hi_key);
        if !(lo.is_finite() && hi.is_finite()) {
            return None;
        }
        let eps = match self.epsilon_mode {
            EpsilonMode::RelativeToMax => self.precision * hi.abs(),
            EpsilonMode::Absolute => self.precision,
        };
        while b.iterations < VALUE_PHASE_LIMIT {
            if hi - lo <= eps {
                return Some(BisectExit::Precision);
            }
            let thres = midpoint(lo, hi);
            let t = key_of_ordered(thres);
            if !(b.lo_key < t && t < b.hi_key) {
                return None;
            }
            if update_exact(b, t, count_at_least(keys, t), k) {
                return Some(BisectExit::Hit);
            }
            if b.hi_key == t {
                hi = thres;
            } else {
                lo = thres;
            }
        }
        None
    }
}

fn finish(b: Bracket, value_iterations: u32, exit: BisectExit) -> BisectOutcome {
    BisectOutcome {
        iterations: b.iterations,
        key_phase_iterations: b.iterations - value_iterations,
        lo_key: b.lo_key,
        hi_key: b.hi_key,
        count_at_hi: b.count_at_hi,
        exit,
    }
}

/// Algorithm 2 as written: `n` steps of `cnt < k ? hi = thres : lo = thres`.
fn search_early_stopping(keys: &[u32], range: (u32, u32), k: usize, n: u32) -> BisectOutcome {
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
        let before = (lo_key, hi_key, lo.to_bits(), hi.to_bits());
        if count_at_least(keys, t) < k {
            (hi, hi_key) = (thres, t);
        } else {
            (lo, lo_key) = (thres, t);
        }
        if before == (lo_key, hi_key, lo.to_bits(), hi.to_bits()) {
            // A fixed point: every remaining step would repeat this one.
            break;
        }
    }
    BisectOutcome {
        iterations: n,
        key_phase_iterations: if finite { 0 } else { n },
        lo_key,
        hi_key,
        count_at_hi: None,
        exit: BisectExit::MaxIter,
    }
}

impl RowTopK for Bisect {
    fn name(&self) -> &'static str {
        "bisect"
    }

    fn is_exact(&self) -> bool {
        self.max_iter.is_none() && self.precision == 0.0
    }

    fn reports_iterations(&self) -> bool {
        true
    }

    fn select_row(
        &self,
        row: &[f32],
        k: usize,
        mode: Mode,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats {
        let keys = grow(&mut scratch.keys, row.len());
        let range = keys_and_range_into(row, mode, keys);
        let outcome = self.search_in_range(keys, range, k);
        Self::select_from(keys, k, &outcome, out);
        RowStats {
            iterations: Some(outcome.iterations),
            work: work_of(row.len(), k, &outcome, out),
        }
    }
}

/// The work of one search and selection: the key and range sweep, one counting pass per
/// iteration (Algorithm 2 counts its `max_iter` steps, as the kernel runs them), the count at
/// `hi` when the search did not leave it, and the selection pass up to its k-th result.
fn work_of(m: usize, k: usize, outcome: &BisectOutcome, out: &[u32]) -> WorkCounters {
    let mut work = WorkCounters::default();
    work.sweep(m);
    for _ in 0..outcome.iterations {
        work.sweep(m);
    }
    if outcome.exit != BisectExit::MaxIter && outcome.count_at_hi.is_none() {
        work.sweep(m);
    }
    work.sweep(out.last().map_or(0, |&i| selection_reads(i, m)));
    work.write(k);
    work
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::{Options, topk_row};
    use crate::oracle::canonical_indices;

    fn run(b: &Bisect, row: &[f32], k: usize, mode: Mode) -> (Vec<u32>, u32) {
        let opts = Options { mode, sorted: false };
        let r = topk_row(b, row, k, opts).unwrap();
        (r.indices, r.stats.iterations.unwrap_or(0))
    }

    #[test]
    fn hand_checked_first_test_hits() {
        // min 0, max 8 -> thres 4: {5, 8} are >= 4, exactly k = 2 on the first test.
        let (idx, it) = run(&Bisect::exact(), &[0.0, 5.0, 1.0, 8.0, 2.0], 2, Mode::Largest);
        assert_eq!((idx, it), (vec![1, 3], 1));
    }

    #[test]
    fn hand_checked_two_tests() {
        // thres 4 counts 1 (< 2) -> hi = 4; thres 2 counts 3 (> 2) -> lo = 2; thres 3 counts 2.
        let (idx, it) = run(&Bisect::exact(), &[0.0, 3.5, 2.0, 8.0, 1.0], 2, Mode::Largest);
        assert_eq!((idx, it), (vec![1, 3], 3));
    }

    #[test]
    fn ties_at_the_kth_value_take_lower_indices() {
        let row = [1.0, 3.0, 3.0, 3.0, 0.0, 3.0];
        let (idx, _) = run(&Bisect::exact(), &row, 2, Mode::Largest);
        assert_eq!(idx, vec![1, 2]);
        let (idx, it) = run(&Bisect::exact(), &[7.0; 9], 4, Mode::Smallest);
        assert_eq!((idx, it), (vec![0, 1, 2, 3], 0));
    }

    #[test]
    fn adjacent_floats_converge_without_hanging() {
        let a = 1.0f32;
        let b = f32::from_bits(a.to_bits() + 1);
        let row = [a, b, a, b, a];
        let (idx, it) = run(&Bisect::exact(), &row, 3, Mode::Largest);
        assert_eq!(idx, vec![0, 1, 3]);
        assert_eq!(it, 0, "no float lies strictly between a and b: no test is possible");
    }

    #[test]
    fn infinities_and_nan_go_through_the_key_phase() {
        let row = [f32::NEG_INFINITY, 1.0, f32::NAN, f32::INFINITY, -0.0, 0.0];
        for k in 0..=row.len() {
            for mode in [Mode::Largest, Mode::Smallest] {
                let (idx, it) = run(&Bisect::exact(), &row, k, mode);
                assert_eq!(idx, canonical_indices(&row, k, mode), "k={k} {mode:?}");
                assert!(it <= MAX_ITERATIONS);
            }
        }
    }

    #[test]
    fn overflowing_midpoints_stay_finite() {
        let row = [f32::MAX, -f32::MAX, f32::MAX * 0.75, 1.0e-40, -1.0e-40, 3.0];
        for k in 1..=row.len() {
            let (idx, it) = run(&Bisect::exact(), &row, k, Mode::Largest);
            assert_eq!(idx, canonical_indices(&row, k, Mode::Largest));
            assert!(it <= MAX_ITERATIONS, "k={k}: {it} iterations");
        }
        assert_eq!(midpoint(f32::MAX, f32::MAX), f32::MAX);
        assert_eq!(midpoint(-f32::MAX, f32::MAX), 0.0);
    }

    #[test]
    fn worst_case_spread_is_bounded_by_64() {
        // The k-th value is a subnormal next to zero while the range spans ±FLT_MAX:
        // value bisection alone would need ~280 halvings.
        let tiny = f32::from_bits(1);
        let row = [-f32::MAX, 0.0, tiny, f32::from_bits(2), f32::MAX];
        for k in 1..=row.len() {
            let (idx, it) = run(&Bisect::exact(), &row, k, Mode::Largest);
            assert_eq!(idx, canonical_indices(&row, k, Mode::Largest));
            assert!(it <= MAX_ITERATIONS, "k={k}: {it} iterations");
        }
        let keys: Vec<u32> = row.iter().map(|&v| crate::order::key_largest(v)).collect();
        let o = Bisect::exact().search(&keys, 3);
        assert!(o.key_phase_iterations > 0, "the value budget must have run out: {o:?}");
    }

    #[test]
    fn early_stopping_is_algorithm_2_as_written() {
        // min 0, max 8: step 1 thres 4 counts 2 >= k=2 -> lo = 4; step 2 thres 6 counts 1 -> hi = 6.
        let row = [0.0, 5.0, 1.0, 8.0, 2.0];
        let (idx, it) = run(&Bisect::early_stopping(2), &row, 2, Mode::Largest);
        assert_eq!((idx, it), (vec![1, 3], 2));
        // With one step, lo = 4 keeps {5, 8}; with none, the first k of the row.
        assert_eq!(run(&Bisect::early_stopping(0), &row, 2, Mode::Largest).0, vec![0, 1]);
        // No break on cnt == k: Algorithm 2 always runs max_iter steps.
        assert_eq!(run(&Bisect::early_stopping(5), &row, 2, Mode::Largest).1, 5);
    }

    #[test]
    fn early_stopping_on_non_finite_rows_returns_valid_indices() {
        let row = [f32::NAN, 2.0, f32::NEG_INFINITY, f32::INFINITY, f32::NAN, 0.0];
        for n in 0..6 {
            let (idx, _) = run(&Bisect::early_stopping(n), &row, 3, Mode::Largest);
            assert_eq!(idx.len(), 3);
            assert!(idx.windows(2).all(|w| w[0] < w[1]));
        }
        // Enough steps: the NaNs (above +inf) and +inf.
        assert_eq!(run(&Bisect::early_stopping(40), &row, 3, Mode::Largest).0, vec![0, 3, 4]);
    }

    #[test]
    fn precision_stops_early_and_still_returns_k() {
        let row: Vec<f32> = (0..100).map(|i| (i as f32 * 0.37).sin()).collect();
        let coarse = Bisect::with_precision(0.5).unwrap();
        let (idx, it) = run(&coarse, &row, 10, Mode::Largest);
        assert_eq!(idx.len(), 10);
        let (_, exact_it) = run(&Bisect::exact(), &row, 10, Mode::Largest);
        assert!(it < exact_it, "{it} !< {exact_it}");
        assert!(Bisect::with_precision(-1.0).is_err());
        assert!(Bisect::with_precision(f32::NAN).is_err());
    }

    #[test]
    fn work_is_one_counting_pass_per_iteration() {
        // 0..=9, k = 3: thresholds 4.5 (5 above: lo) and 6.75 (3: a hit), 2 iterations.
        let row: Vec<f32> = (0..10).map(|i| i as f32).collect();
        let r = topk_row(&Bisect::exact(), &row, 3, Options::default()).unwrap();
        assert_eq!(r.stats.iterations, Some(2));
        let w = r.stats.work;
        // Keys and range, two counting passes, the selection pass (one chunk).
        assert_eq!((w.elements_read, w.elements_written, w.passes), (10 * 3 + 10, 3, 4));
        // Algorithm 2 counts its max_iter steps, as the kernel runs them.
        let r = topk_row(&Bisect::early_stopping(6), &row, 3, Options::default()).unwrap();
        assert_eq!(r.stats.work.passes, 1 + 6 + 1);
    }

    #[test]
    fn smallest_mode_mirrors_largest_on_the_negated_row() {
        let row: Vec<f32> = (0..77).map(|i| ((i * 37) % 101) as f32 * 0.5 - 20.0).collect();
        let neg: Vec<f32> = row.iter().map(|v| -v).collect();
        for k in [1, 5, 40, 77] {
            let a = run(&Bisect::exact(), &row, k, Mode::Smallest);
            let b = run(&Bisect::exact(), &neg, k, Mode::Largest);
            assert_eq!(a, b, "k={k}");
        }
    }
}
