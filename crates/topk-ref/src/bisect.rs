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
//! This section is the specification of the search and of its iteration counts (docs/contract.md §3) for
//! rows of every element type: the floats `f32`, `f16` and `bf16` first, then `f64` and the
//! integers.
//!
//! **Keys and counts.** Every element `e` has its *own key* `K(e)` ([`Element::key`] in the
//! mode: 32 bits for `f32`, 16 bits for `f16` and `bf16`) and its *wide key* `W(e)`, the f32
//! key ([`crate::order::key`]) of its exact f32 value; for an `f32` row `K = W`. Keys of one
//! type are order-isomorphic to their wide keys. Thresholds are computed in f32 on *ordered
//! values* (`v`, or `-v` in smallest mode; [`Element::ordered_value_of_key`] turns an own key
//! into one). A **test at an f32 threshold** `thres` counts
//! `cnt = |{e : W(e) >= key_of_ordered(thres)}|`, which equals `|{e : K(e) >= C(thres)}|`
//! with `C` = [`Element::key_at_least`] — the own key of the smallest value of the row's type
//! that is `>= thres`: round `thres` to the nearest value of the type (ties to even), step to
//! the next value up if that is below `thres`, take its key (for `f32`, `C` is
//! [`crate::order::key_of_ordered`] itself; topk-ref computes the same ceiling for f16 and
//! bf16 in integers, without a float conversion). Implementations count in whichever key
//! space they hold (a GPU kernel may keep 16-bit keys and compare them with `C(thres)`). A
//! **test at an own key** `t` counts `|{e : K(e) >= t}|`. Each test is one iteration (docs/contract.md §3;
//! the first test is iteration 1).
//!
//! **Exact mode** (Algorithm 1, precision ε' ≥ 0, default 0). The bracket is a pair of own
//! keys `lo ≤ hi`, and while the value phase runs, also a pair of f32 ordered values
//! `lo_v < hi_v`.
//! 1. `lo, hi` = the smallest and largest own key of the row. Equal → converged, 0 iterations.
//! 2. *Value phase* — the same steps, thresholds and counts for an `f32`, `f16` or `bf16` row
//!    holding the same values. It runs only when `lo_v` and `hi_v`, the ordered values of
//!    `lo` and `hi` ([`Element::ordered_value_of_key`]: exact, zero as `+0.0`), are both
//!    finite (not `±inf`, not NaN); ε = ε'·|hi_v| (the paper's line 3; or ε' itself with
//!    [`EpsilonMode::Absolute`]). While fewer than [`VALUE_PHASE_LIMIT`] = 32 tests were made:
//!    * if `hi_v - lo_v <= ε` (f32 subtraction), the search ends (ε > 0 only: approximate);
//!    * `thres = (lo_v + hi_v) * 0.5` in f32 (if that is not finite, `lo_v * 0.5 + hi_v * 0.5`);
//!    * if `key_of_ordered(thres)` is not strictly between `key_of_ordered(lo_v)` and
//!      `key_of_ordered(hi_v)` (wide keys: no f32 lies strictly between the bounds), the value
//!      phase ends;
//!    * otherwise a test at `thres`: `cnt < k → hi_v = thres, hi = C(thres)`;
//!      `cnt > k → lo_v = thres, lo = C(thres)`; `cnt == k → hit` (`hi = C(thres)`), the
//!      search ends.
//! 3. *Key phase* — only where the value phase cannot proceed (a bound is `±inf` or NaN, no
//!    f32 lies between the bounds, or the 32 value tests are spent), in the **own key space**,
//!    starting from the own keys `lo, hi` as the value phase left them: while `hi - lo > 1`,
//!    a test at the own key `t = lo + (hi - lo) / 2` (unsigned integers, division rounding
//!    down): `cnt < k → hi = t`; `cnt > k → lo = t`; `cnt == k → hit` (`hi = t`), the
//!    search ends. Each key test halves an interval of at most `2^bits` keys.
//! 4. *Selection* (after a hit, a converged bracket or a precision stop): every element with
//!    `K(e) >= hi`, plus the first elements by index with `lo <= K(e) < hi` until k are taken —
//!    or, when no test ever lowered `hi` and `|{K(e) >= hi}| >= k` (ties at the maximum), the
//!    first k by index with `K(e) >= hi`.
//!
//! So the worst case on *any* row is [`VALUE_PHASE_LIMIT`] value tests plus one key test per
//! key bit: **64 iterations for `f32`** ([`MAX_ITERATIONS`]) and **48 for `f16` and `bf16`**
//! ([`max_iterations`]). On rows of finite values with ε' = 0 and no pathological spread, only
//! the value phase runs: it is the paper's Algorithm 1 with its iteration statistics (Tables 1
//! and 5). A 16-bit row makes exactly the value tests of the f32 row of the same values, so
//! it reports the f32 row's count whenever that search ends in its value phase (a hit or a
//! precision stop); where the f32 row goes on to its key phase, the 16-bit row does too, in
//! its own (16-bit) key space.
//!
//! **`f64` rows** take the same path with 64-bit keys: the value phase computes in `f64`
//! (ordered values [`Element::ordered_of_key`], midpoints `(lo_v + hi_v) * 0.5` in `f64`, the
//! strictly-between test on `f64` keys, ε = ε'·|hi_v| in `f64`), at most
//! [`VALUE_PHASE_LIMIT`] tests, then the key phase on 64-bit keys: **at most 96 iterations**.
//! A hint (an `f32`) is widened exactly to `f64`.
//!
//! **Integer rows** (`i8`, `u8`, `i16`, `i32`, `i64`) have no value phase: an integer's own key
//! is its value with the sign bit flipped (complemented in smallest mode), i.e. the value
//! shifted to start at 0, so halving keys *is* halving the value range. With `lo`, `hi` the
//! smallest and largest own key (equal → converged, 0 iterations), the search is the key
//! phase alone: while `hi - lo > 1`, a test at `t = lo + ⌊(hi - lo) / 2⌋`, counting
//! `|{e : K(e) >= t}|`: `cnt < k → hi = t`; `cnt > k → lo = t`; `cnt == k → hit`. Written on
//! values: in largest mode the test counts `v >= lo_v + ⌊(hi_v - lo_v) / 2⌋` (`lo_v`, `hi_v`
//! the bracket's values, computed exactly in a wider integer); in smallest mode it counts
//! `v <= hi_v - ⌊(hi_v - lo_v) / 2⌋` (the mirror image: the midpoint rounds toward the
//! bracket's end that ranks lower in the mode). Each test is one iteration; an interval of
//! `hi - lo < 2^b` keys needs at most `b` tests, so **at most 8, 16, 32 and 64 iterations**
//! on 8-, 16-, 32- and 64-bit integers, and the answer is exact — no fallback exists or is
//! needed. A precision ε' > 0 has nothing to stop (it is a width in value space, and there is
//! no value phase): integer rows are always searched exactly. Algorithm 2 makes each of its
//! `n` steps a key test (`cnt < k → hi = t`, else `lo = t`). A hint (an `f32`, in the
//! input's orientation) is tested at the key of the least integer `>= hint` (largest mode;
//! the greatest integer `<= hint` in smallest mode; none beyond the type's range, see
//! [`Element::hint_key`]); the hint test then counts as one more iteration before the key
//! phase (no window tests: they are value-space steps), so **a hinted integer row takes at
//! most one iteration more** ([`max_iterations`]: 9, 17, 33, 65).
//!
//! **Early stopping** (Algorithm 2, `max_iter = n`): the reported iteration count is `n`.
//! `lo, hi` = smallest and largest own key. If both stand for finite values, each of the `n`
//! steps is a test at `thres`, the midpoint of `lo_v` and `hi_v` by the formula above (no
//! strictly-between check): `cnt < k → hi_v = thres, hi = C(thres)`, else `lo_v = thres,
//! lo = C(thres)` — the steps of the f32 row of the same values. Otherwise each step is a test at the own key
//! `t = lo + (hi - lo) / 2`: `cnt < k → hi = t`, else `lo = t` (16-bit key space on 16-bit
//! rows). Then the first k indices with `K(e) >= lo` are selected. (Once the bracket stops
//! moving the remaining steps are identical no-ops, so they are skipped — the result is the
//! same.)
//!
//! **Recall** (docs/contract.md §6; `recall = r`, `0 < r < 1`): exact mode with one more
//! stopping test. The bracket also carries `cnt(lo)` (the row's length until a test raises
//! `lo`; then that test's count) beside `cnt(hi)` (0 until a test lowers `hi`). The selection
//! of step 4 takes every element `>= hi` — all `cnt(hi)` of them are in the top k — and fills up
//! from the band `[lo, hi)`, which holds the other `k - cnt(hi)` of the top k among its
//! `cnt(lo) - cnt(hi)` elements; so it misses at most `min(k - cnt(hi), cnt(lo) - k)` of the
//! top k, **on any row, whatever its order, ties or NaNs**. With `slack = k - ceil(r·k)` (`r·k`
//! in f32), the value phase and the key phase check, **before each test**, whether that bound
//! is `<= slack`; if so the search ends (exit [`BisectExit::Recall`]) and step 4 selects. A
//! slack of 0 (`r·k` rounds up to k, e.g. k <= 19 at r = 0.95) is exact mode itself, tests
//! and count included.
//! Every row's recall is then at least `ceil(r·k) / k >= r` — the mean over a call's rows
//! too. The count is the tests made (0 when the row's length is already within `k + slack`);
//! a hint is ignored (the answer is path-dependent, as with a precision). On rows of
//! normal, uniform or bf16-rounded values the rule stops at about half of exact mode's tests
//! for `r = 0.95` (`rtopk stats recall` measures it per family).
//!
//! **Hints** (docs/contract.md §5; exact mode only — Algorithm 2 and a precision ε' > 0 ignore
//! them, since their answer depends on the path). A hint is an f32 guess `h` of the row's
//! threshold (its k-th value, in the input's orientation); `h_o` is its ordered value. It
//! replaces the first tests of the search; the bracket invariants stay those of exact mode
//! (`cnt(lo) >= k`; `cnt(hi) < k`, or `== k` on a hit, once a test set `hi`), so the answer
//! is always the canonical one, whatever `h` is.
//! 1. `lo, hi` = the smallest and largest own key, as above.
//! 2. *Hint test* (`hint_test`) — skipped when `h` is NaN, when `hi - lo <= 1`, or when
//!    `t = C(h_o)` is not in `lo < t <= hi` (a hint outside the row's range says nothing);
//!    a skipped hint leaves **exactly the search without a hint** (same tests, same count).
//!    Otherwise one pass counts both `above = |{K(e) > t}|` and `at_least = |{K(e) >= t}|`;
//!    this is **iteration 1** (one pass, two counts):
//!    * `at_least < k` → `hi = t` (the threshold is below the hint; side *below*);
//!    * `above == k` → hit: `hi = t + 1`, the search ends;
//!    * `above > k` → `lo = t + 1` (the threshold is above the hint; side *above*);
//!    * otherwise (`above < k <= at_least`) the k-th key **is** `t`: `at_least == k` → hit
//!      (`hi = t`); else `lo = t` and, when `t < hi`, `hi = t + 1` (with `cnt(hi) = above`) —
//!      converged either way. The search ends.
//! 3. *Window tests* (`window_tests`) — at most [`HINT_WINDOW_SHIFTS`]`.len()` = 3 tests,
//!    only while the ordered values `lo_v, hi_v` of the bounds (re-read from the keys before
//!    each test) are finite: a test at `thres = lo_v + w` (side above) or `hi_v - w` (side
//!    below), `w = hi_v · 2^-s - lo_v · 2^-s` with `s` = 10, 7, then 4 — a window next to the
//!    hint, 1/1024 of the bracket, then 1/128, then 1/16. It is skipped (the window tests
//!    end) when `key_of_ordered(thres)` is not strictly between the bounds' wide keys. The
//!    update is the value phase's (`cnt < k → hi`, `cnt > k → lo`, `== k` → hit, the search
//!    ends). When the test moved the bound on the far side of the hint (side above: `hi`;
//!    below: `lo`), the window brackets the threshold and the window tests end; otherwise the
//!    next, wider window is tried.
//! 4. If `lo == hi` the search has converged; otherwise the value phase and key phase of exact
//!    mode continue from the bracket as it stands, `lo_v, hi_v` read from its keys, the hint
//!    and window tests counting toward the [`VALUE_PHASE_LIMIT`] — so the bounds above (64 and
//!    48 iterations) hold with any hint. (With a hint, a 16-bit row's tests are no longer
//!    the f32 row's: the bounds are re-read from its own keys.)
//!
//! With the row's own threshold as hint, `t` is the k-th key and the hint test ends the
//! search: 1 iteration, or none when skipped (the count without a hint). When it is not
//! skipped, `hi - lo > 1` leaves a value strictly between the bounds, so the search without a
//! hint makes at least 1 test too: **the count with the row's own threshold never exceeds the
//! count without** (every row of every type where that threshold's key is the row's k-th key:
//! a property test in `tests/ragged.rs`; an int32, int64 or f64 row's f32 threshold may be
//! rounded, and then it is only a near hint, which can cost a test more). A
//! near hint (the last decode step's threshold) brackets the threshold in 2–4 tests within
//! 1/1024 (or 1/128, or 1/16) of the bracket the hint test left, where plain bisection needs
//! 10 (or 7, or 4) halvings for that; on rows of normal scores with 2 % of the values
//! redrawn between steps, the previous step's thresholds at least halve the mean count
//! (tested in `tests/ragged.rs`). The shifts are the ones that kept that mean lowest over the
//! decode benchmark's shapes (rows of 16K–1M, k = 50–2048) with 1–5 % of the values redrawn:
//! a narrow first window suits long rows, whose threshold moves by few elements, a wide last
//! one short rows of small k, whose threshold moves by more of the bracket (docs/performance.md,
//! "Threshold hints"). A useless hint spends at most 4 tests (hint test and windows) before
//! the ordinary bisection of the bracket they leave; the bounds of 64 and 48 iterations hold
//! for every hint.
//!
//! # Cost
//! Time O(M · iterations): one counting pass per test plus a key-and-range pass and one
//! selection pass; at most 64 tests (48 on 16-bit rows) on any row. Normal rows need ~8–13
//! (paper Table 5). Extra memory: M own keys in the scratch (`u32`, or `u16` for 16-bit rows,
//! whose counting passes then read half the bytes).
//!
//! # On a GPU warp
//! This is RTop-K's own design (§3.2): a warp loads the row (the loading stage), each test is a
//! per-lane count + a `log2 32` shuffle reduction broadcast to all lanes (the searching stage),
//! and the final pass is a ballot + popc prefix over chunks of 32 (the selecting stage). Every
//! lane runs the same bracket updates, so the warp never diverges; the search touches only
//! shared memory or registers.

use crate::algorithm::{RowStats, Scratch, WorkCounters, grow};
use crate::error::TopKError;
use crate::order::{Element, KeyBits, Mode, OrderedValue, RowSelect, keys_and_range_into};
use crate::select::select_in_index_order;

/// Value-space tests allowed before the search moves to the key phase.
pub const VALUE_PHASE_LIMIT: u32 = 32;
/// Upper bound on the iterations of exact mode on any `f32` row: [`VALUE_PHASE_LIMIT`] value
/// tests plus at most 32 key tests ([`max_iterations`] of `f32`).
pub const MAX_ITERATIONS: u32 = max_iterations::<f32>();

/// Upper bound on the iterations of exact mode on any row of `E`, with or without a hint:
/// for floats [`VALUE_PHASE_LIMIT`] value tests plus one key test per bit of `E`'s key — 64
/// for `f32`, 48 for `f16` and `bf16`, 96 for `f64`; for integers one key test per bit plus
/// the hint test (module docs, "Integer rows") — 9, 17, 33 and 65 for 8-, 16-, 32- and 64-bit
/// integers (8, 16, 32 and 64 without a hint).
pub const fn max_iterations<E: Element>() -> u32 {
    let bits = <E::Key as KeyBits>::BITS;
    if <E::Ordered as OrderedValue>::HAS_VALUE_PHASE { VALUE_PHASE_LIMIT + bits } else { bits + 1 }
}

/// The window tests after a hint test (see the module docs): a test `2^-s` of the bracket away
/// from the hint, for each `s` in turn, until one brackets the threshold.
pub const HINT_WINDOW_SHIFTS: [i32; 3] = [10, 7, 4];

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
    /// `Some(r)`, `0 < r < 1`: exact mode that stops as soon as its bracket guarantees a
    /// recall of at least `r` (module docs, "Recall"; docs/contract.md §6).
    pub recall: Option<f32>,
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
    /// The bracket guarantees the recall target (module docs, "Recall"; approximate).
    Recall,
}

/// The state a search ends in; [`Bisect::select_from`] turns it into the selection. Keys are
/// the row's own keys (`K` = `u32` for `f32` rows, `u16` for `f16` and `bf16` rows).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BisectOutcome<K = u32> {
    /// Iterations (threshold tests, docs/contract.md §3).
    pub iterations: u32,
    /// How many of those were key-phase tests.
    pub key_phase_iterations: u32,
    /// Key of the lower bound `lo` (`cnt(lo) >= k`).
    pub lo_key: K,
    /// Key of the upper bound `hi`.
    pub hi_key: K,
    /// `cnt(hi)`, when `hi` was set by a test (it is `< k` then, or `== k` on a hit).
    pub count_at_hi: Option<usize>,
    /// Why the search stopped.
    pub exit: BisectExit,
}

pub use crate::order::midpoint;

/// `|{i : keys[i] >= t}|` — the counting pass of one test.
#[inline]
pub fn count_at_least<K: KeyBits>(keys: &[K], t: K) -> usize {
    K::count_at_least(keys, t)
}

/// The smallest and largest key of a non-empty row.
#[inline]
pub fn key_range<K: KeyBits>(keys: &[K]) -> (K, K) {
    keys.iter().fold((K::MAX, K::default()), |(lo, hi), &x| (lo.min(x), hi.max(x)))
}

/// The key midpoint of the key phase: `lo + (hi - lo) / 2` (`lo <= hi`).
#[inline]
fn key_midpoint<K: KeyBits>(lo: K, hi: K) -> K {
    let (lo, hi) = (lo.to_u64(), hi.to_u64());
    K::from_u64(lo + (hi - lo) / 2)
}

/// Mutable bracket of a search, in the row's own keys.
struct Bracket<K> {
    lo_key: K,
    hi_key: K,
    count_at_hi: Option<usize>,
    /// `cnt(lo)`: the row's length until a test raises `lo` (the recall rule reads it).
    count_at_lo: usize,
    iterations: u32,
}

impl<K> Bracket<K> {
    fn new(lo_key: K, hi_key: K, len: usize) -> Self {
        Self { lo_key, hi_key, count_at_hi: None, count_at_lo: len, iterations: 0 }
    }

    /// The recall rule (module docs, "Recall"): the selection this bracket makes misses at
    /// most `min(k - cnt(hi), cnt(lo) - k)` of the top k; stop once that is `<= slack`. An
    /// unknown `cnt(hi)` counts as 0.
    fn recall_met(&self, k: usize, slack: usize) -> bool {
        let misses_above = k.saturating_sub(self.count_at_hi.unwrap_or(0));
        let misses_below = self.count_at_lo.saturating_sub(k);
        misses_above.min(misses_below) <= slack
    }
}

/// What one test of Algorithm 1 did to the bracket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// `cnt < k`: `hi` moved down to the threshold.
    Lowered,
    /// `cnt > k`: `lo` moved up to the threshold.
    Raised,
    /// `cnt == k`.
    Hit,
}

/// The three-way update of Algorithm 1 after counting `cnt` at threshold key `t`.
#[inline]
fn update_exact<K: Copy>(b: &mut Bracket<K>, t: K, cnt: usize, k: usize) -> Step {
    b.iterations += 1;
    if cnt > k {
        b.lo_key = t;
        b.count_at_lo = cnt;
        return Step::Raised;
    }
    b.hi_key = t;
    b.count_at_hi = Some(cnt);
    if cnt < k { Step::Lowered } else { Step::Hit }
}

impl Bisect {
    /// Exact Algorithm 1 (ε' = 0).
    pub const fn exact() -> Self {
        Self {
            precision: 0.0,
            epsilon_mode: EpsilonMode::RelativeToMax,
            max_iter: None,
            recall: None,
        }
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

    /// Exact mode stopped by the recall rule at target `recall` (`0 < recall <= 1`; 1 is
    /// exact mode itself).
    pub fn with_recall(recall: f32) -> Result<Self, TopKError> {
        let b = Self { recall: (recall != 1.0).then_some(recall), ..Self::exact() };
        b.validate()?;
        Ok(b)
    }

    /// Checks the parameters: the precision must be a finite number `>= 0`; a recall target
    /// lies in `(0, 1]` and goes with neither `max_iter` nor a precision.
    pub fn validate(&self) -> Result<(), TopKError> {
        if !(self.precision.is_finite() && self.precision >= 0.0) {
            return Err(TopKError::InvalidParameter {
                name: "precision",
                reason: format!("must be a finite number >= 0, got {}", self.precision),
            });
        }
        let Some(r) = self.recall else { return Ok(()) };
        let invalid = |reason: String| Err(TopKError::InvalidParameter { name: "recall", reason });
        if !(r > 0.0 && r <= 1.0) {
            return invalid(format!("must lie in (0, 1], got {r}"));
        }
        if self.max_iter.is_some() || self.precision != 0.0 {
            return invalid("a recall target goes with neither max_iter nor a precision".into());
        }
        Ok(())
    }

    /// How many of the top `k` the recall rule may miss: `k - ceil(r·k)`, computed in f32
    /// (`r·k` rounded to nearest, as the kernels compute it); `None` without a recall target,
    /// and where the target allows no miss (`ceil(r·k) = k`: exact mode itself).
    pub fn recall_slack(&self, k: usize) -> Option<usize> {
        let r = self.recall?;
        let need = (r * k as f32).ceil() as usize;
        Some(k.saturating_sub(need)).filter(|&slack| slack > 0)
    }

    /// Runs the search on the keys of one `f32` row (`1 <= k <= keys.len()`).
    pub fn search(&self, keys: &[u32], k: usize) -> BisectOutcome {
        self.search_in_range(keys, key_range(keys), k)
    }

    /// [`Bisect::search`] when the key range `(min, max)` is already known.
    pub fn search_in_range(&self, keys: &[u32], range: (u32, u32), k: usize) -> BisectOutcome {
        self.search_keys::<f32>(keys, range, k)
    }

    /// The search on the own keys of a row of `E` ([`Element::key`] in the row's mode) whose
    /// key range `(min, max)` is known (`1 <= k <= keys.len()`): the module's specification.
    pub fn search_keys<E: Element>(
        &self,
        keys: &[E::Key],
        range: (E::Key, E::Key),
        k: usize,
    ) -> BisectOutcome<E::Key> {
        match self.max_iter {
            Some(n) => search_early_stopping::<E>(keys, range, k, n),
            None => self.search_exact::<E>(keys, range, k),
        }
    }

    /// [`Bisect::search_keys`] with a threshold hint: `hint` is the hint's **ordered value**
    /// ([`crate::order::ordered_value`] of the f32 hint in the row's mode) on rows of `f32`,
    /// `f16` and `bf16`. Exact mode runs the hint test and the window tests first (module
    /// docs, "Hints"); the other modes ignore the hint. Any `hint` gives the same selection as
    /// no hint. (Rows of every type: [`Bisect::search_keys_hint_key`].)
    pub fn search_keys_hinted<E: Element<Ordered = f32>>(
        &self,
        keys: &[E::Key],
        range: (E::Key, E::Key),
        k: usize,
        hint: f32,
    ) -> BisectOutcome<E::Key> {
        let t = (!hint.is_nan()).then(|| E::key_at_least_ordered(hint));
        self.search_keys_hint_key::<E>(keys, range, k, t)
    }

    /// [`Bisect::search_keys`] with a hint given as the own key it is tested at
    /// ([`Element::hint_key`] of the f32 hint; `None`: no hint test). Exact mode runs the hint
    /// test and the window tests first (module docs, "Hints"); the other modes ignore it. Any
    /// hint gives the same selection as no hint.
    pub fn search_keys_hint_key<E: Element>(
        &self,
        keys: &[E::Key],
        range: (E::Key, E::Key),
        k: usize,
        hint: Option<E::Key>,
    ) -> BisectOutcome<E::Key> {
        if !RowSelect::is_exact(self) {
            return self.search_keys::<E>(keys, range, k);
        }
        let (lo_key, hi_key) = range;
        let mut b = Bracket::new(lo_key, hi_key, keys.len());
        let side = match hint_test_key::<E>(keys, k, hint, &mut b) {
            HintStep::Skipped => return self.search_exact::<E>(keys, range, k),
            HintStep::Ended(exit) => return finish_value(b, exit),
            HintStep::Side(side) => side,
        };
        if let Some(exit) = window_tests::<E>(keys, k, side, &mut b) {
            return finish_value(b, exit);
        }
        if b.lo_key == b.hi_key {
            return finish_value(b, BisectExit::Converged);
        }
        self.search_bracket::<E>(keys, k, b)
    }

    /// Writes the selection that `outcome` describes into `out` (ascending index order).
    pub fn select_from<K: KeyBits>(
        keys: &[K],
        k: usize,
        outcome: &BisectOutcome<K>,
        out: &mut [u32],
    ) {
        let b = outcome;
        if b.exit == BisectExit::MaxIter {
            // Algorithm 2, line 12: the first k of {v >= min}.
            select_in_index_order(keys, K::MAX, b.lo_key, 0, k, out);
            return;
        }
        let at_hi = b.count_at_hi.unwrap_or_else(|| count_at_least(keys, b.hi_key));
        if at_hi >= k {
            // hi was never lowered and ties at the maximum fill k: the first k of them.
            select_in_index_order(keys, K::MAX, b.hi_key, 0, k, out);
        } else {
            // hi_key > lo_key >= 0 here, so hi_key - 1 does not wrap.
            let strong_above = K::from_u64(b.hi_key.to_u64() - 1);
            select_in_index_order(keys, strong_above, b.lo_key, at_hi, k, out);
        }
    }

    fn search_exact<E: Element>(
        &self,
        keys: &[E::Key],
        range: (E::Key, E::Key),
        k: usize,
    ) -> BisectOutcome<E::Key> {
        let (lo_key, hi_key) = range;
        let b = Bracket::new(lo_key, hi_key, keys.len());
        if lo_key == hi_key {
            return finish(b, 0, BisectExit::Converged);
        }
        self.search_bracket::<E>(keys, k, b)
    }

    /// The value phase, then the key phase, from the bracket `b` (`lo < hi`); tests already
    /// made count toward the value phase's budget.
    fn search_bracket<E: Element>(
        &self,
        keys: &[E::Key],
        k: usize,
        mut b: Bracket<E::Key>,
    ) -> BisectOutcome<E::Key> {
        if let Some(exit) = self.value_phase::<E>(keys, k, &mut b) {
            // Every test so far was a value test.
            let value_iterations = b.iterations;
            return finish(b, value_iterations, exit);
        }
        let value_iterations = b.iterations;
        let slack = self.recall_slack(k);
        while b.hi_key.to_u64() - b.lo_key.to_u64() > 1 {
            if slack.is_some_and(|s| b.recall_met(k, s)) {
                return finish(b, value_iterations, BisectExit::Recall);
            }
            let t = key_midpoint(b.lo_key, b.hi_key);
            if update_exact(&mut b, t, count_at_least(keys, t), k) == Step::Hit {
                return finish(b, value_iterations, BisectExit::Hit);
            }
        }
        finish(b, value_iterations, BisectExit::Converged)
    }

    /// The paper's value-space loop. `Some(exit)` ends the search; `None` hands the bracket
    /// to the key phase.
    fn value_phase<E: Element>(
        &self,
        keys: &[E::Key],
        k: usize,
        b: &mut Bracket<E::Key>,
    ) -> Option<BisectExit> {
        let mut lo = E::ordered_of_key(b.lo_key);
        let mut hi = E::ordered_of_key(b.hi_key);
        if !(lo.is_finite() && hi.is_finite()) {
            return None;
        }
        // The bounds' wide keys (f32 keys on 16-bit rows): the strictly-between test is that
        // of the f32 row of the same values.
        let (mut lo_wide, mut hi_wide) = (lo.wide_key(), hi.wide_key());
        let relative = self.epsilon_mode == EpsilonMode::RelativeToMax;
        let eps = E::Ordered::epsilon(self.precision, relative, hi);
        let slack = self.recall_slack(k);
        while b.iterations < VALUE_PHASE_LIMIT {
            if slack.is_some_and(|s| b.recall_met(k, s)) {
                return Some(BisectExit::Recall);
            }
            if E::Ordered::within(lo, hi, eps) {
                return Some(BisectExit::Precision);
            }
            let thres = E::Ordered::midpoint(lo, hi);
            let wide = thres.wide_key();
            if !(lo_wide < wide && wide < hi_wide) {
                return None;
            }
            let t = E::key_at_least_ordered(thres);
            match update_exact(b, t, count_at_least(keys, t), k) {
                Step::Hit => return Some(BisectExit::Hit),
                Step::Lowered => (hi, hi_wide) = (thres, wide),
                Step::Raised => (lo, lo_wide) = (thres, wide),
            }
        }
        None
    }
}

/// Where the row's threshold lies after the hint test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HintSide {
    /// Above the hint: the test raised `lo`.
    Above,
    /// Below the hint: the test lowered `hi`.
    Below,
}

/// What the hint test did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HintStep {
    /// No test: the search runs as without a hint.
    Skipped,
    /// The search ended (a hit, or the k-th key found).
    Ended(BisectExit),
    /// The bracket was cut at the hint; the threshold is on this side of it.
    Side(HintSide),
}

/// `(|{keys > t}|, |{keys >= t}|)` — the hint test's two counts, in one pass.
#[inline]
pub fn count_above_and_at_least<K: KeyBits>(keys: &[K], t: K) -> (usize, usize) {
    keys.iter().fold((0, 0), |(above, at_least), &x| {
        (above + usize::from(x > t), at_least + usize::from(x >= t))
    })
}

/// The hint test (module docs, "Hints", step 2): one pass at `t = C(hint)` counting the keys
/// above `t` and at least `t`, so that a hint equal to the threshold ends the search.
fn hint_test_key<E: Element>(
    keys: &[E::Key],
    k: usize,
    hint: Option<E::Key>,
    b: &mut Bracket<E::Key>,
) -> HintStep {
    let (lo, hi) = (b.lo_key.to_u64(), b.hi_key.to_u64());
    let Some(t) = hint else {
        return HintStep::Skipped;
    };
    if hi - lo <= 1 {
        return HintStep::Skipped;
    }
    let tv = t.to_u64();
    if tv <= lo || tv > hi {
        return HintStep::Skipped;
    }
    let (above, at_least) = count_above_and_at_least(keys, t);
    b.iterations += 1;
    if at_least < k {
        b.hi_key = t;
        b.count_at_hi = Some(at_least);
        return HintStep::Side(HintSide::Below);
    }
    if above >= k {
        // A key above t exists (above >= k >= 1), so t + 1 <= hi: no overflow.
        let next = <E::Key as KeyBits>::from_u64(tv + 1);
        if above > k {
            b.lo_key = next;
            return HintStep::Side(HintSide::Above);
        }
        b.hi_key = next;
        b.count_at_hi = Some(above);
        return HintStep::Ended(BisectExit::Hit);
    }
    // above < k <= at_least: the k-th key is t itself.
    if at_least == k {
        b.hi_key = t;
        b.count_at_hi = Some(at_least);
        return HintStep::Ended(BisectExit::Hit);
    }
    b.lo_key = t;
    if tv < hi {
        b.hi_key = <E::Key as KeyBits>::from_u64(tv + 1);
        b.count_at_hi = Some(above);
    }
    HintStep::Ended(BisectExit::Converged)
}

/// [`hint_test_key`] at the hint's ordered value `hint` (rows of `f32`, `f16`, `bf16`).
#[cfg(test)]
fn hint_test<E: Element<Ordered = f32>>(
    keys: &[E::Key],
    k: usize,
    hint: f32,
    b: &mut Bracket<E::Key>,
) -> HintStep {
    let t = (!hint.is_nan()).then(|| E::key_at_least_ordered(hint));
    hint_test_key::<E>(keys, k, t, b)
}

/// The window test's threshold on `f32` ordered values ([`OrderedValue::window`]).
#[cfg(test)]
fn window_threshold(lo: f32, hi: f32, shift: i32, side: HintSide) -> f32 {
    f32::window(lo, hi, shift, side == HintSide::Above)
}

/// The window tests (module docs, "Hints", step 3): cuts `2^-s` of the bracket away from the
/// hint's side, for each `s` of [`HINT_WINDOW_SHIFTS`], until one brackets the threshold.
/// `Some(exit)` ends the search (a hit).
fn window_tests<E: Element>(
    keys: &[E::Key],
    k: usize,
    side: HintSide,
    b: &mut Bracket<E::Key>,
) -> Option<BisectExit> {
    for shift in HINT_WINDOW_SHIFTS {
        let lo = E::ordered_of_key(b.lo_key);
        let hi = E::ordered_of_key(b.hi_key);
        if !(lo.is_finite() && hi.is_finite()) {
            return None;
        }
        let thres = E::Ordered::window(lo, hi, shift, side == HintSide::Above);
        let wide = thres.wide_key();
        if !(lo.wide_key() < wide && wide < hi.wide_key()) {
            return None;
        }
        let t = E::key_at_least_ordered(thres);
        match (update_exact(b, t, count_at_least(keys, t), k), side) {
            (Step::Hit, _) => return Some(BisectExit::Hit),
            // The far bound moved: the window holds the threshold.
            (Step::Lowered, HintSide::Above) | (Step::Raised, HintSide::Below) => return None,
            _ => {}
        }
    }
    None
}

/// [`finish`] of a search that made no key-phase test.
fn finish_value<K>(b: Bracket<K>, exit: BisectExit) -> BisectOutcome<K> {
    let iterations = b.iterations;
    finish(b, iterations, exit)
}

fn finish<K>(b: Bracket<K>, value_iterations: u32, exit: BisectExit) -> BisectOutcome<K> {
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
fn search_early_stopping<E: Element>(
    keys: &[E::Key],
    range: (E::Key, E::Key),
    k: usize,
    n: u32,
) -> BisectOutcome<E::Key> {
    let (mut lo_key, mut hi_key) = range;
    let mut lo = E::ordered_of_key(lo_key);
    let mut hi = E::ordered_of_key(hi_key);
    let finite = lo.is_finite() && hi.is_finite();
    for _ in 0..n {
        let (thres, t) = if finite {
            let thres = E::Ordered::midpoint(lo, hi);
            (thres, E::key_at_least_ordered(thres))
        } else {
            (E::Ordered::nan(), key_midpoint(lo_key, hi_key))
        };
        let before = (lo_key, hi_key, lo.bits(), hi.bits());
        if count_at_least(keys, t) < k {
            (hi, hi_key) = (thres, t);
        } else {
            (lo, lo_key) = (thres, t);
        }
        if before == (lo_key, hi_key, lo.bits(), hi.bits()) {
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

impl RowSelect for Bisect {
    fn name(&self) -> &'static str {
        "bisect"
    }

    fn is_exact(&self) -> bool {
        self.max_iter.is_none() && self.precision == 0.0 && self.recall.is_none()
    }

    fn reports_iterations(&self) -> bool {
        true
    }

    fn select<E: Element>(
        &self,
        row: &[E],
        k: usize,
        mode: Mode,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats {
        let keys = grow(&mut E::Key::buffers(scratch).keys, row.len());
        let range = keys_and_range_into(row, mode, keys);
        let outcome = self.search_keys::<E>(keys, range, k);
        Self::select_from(keys, k, &outcome, out);
        RowStats { iterations: Some(outcome.iterations), work: work_of(row.len(), &outcome, out) }
    }

    /// The search with the hint test and window tests first (module docs, "Hints").
    fn select_hinted<E: Element>(
        &self,
        row: &[E],
        k: usize,
        mode: Mode,
        hint: Option<f32>,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats {
        let Some(hint) = hint else {
            return self.select(row, k, mode, scratch, out);
        };
        let keys = grow(&mut E::Key::buffers(scratch).keys, row.len());
        let range = keys_and_range_into(row, mode, keys);
        let outcome = self.search_keys_hint_key::<E>(keys, range, k, E::hint_key(hint, mode));
        Self::select_from(keys, k, &outcome, out);
        RowStats { iterations: Some(outcome.iterations), work: work_of(row.len(), &outcome, out) }
    }
}

/// The work of one search and selection: the key and range sweep, one counting pass per
/// iteration (Algorithm 2 counts its `max_iter` steps, as the kernel runs them), the count at
/// `hi` when the search did not leave it, and the selection pass up to its k-th result.
fn work_of<K>(m: usize, outcome: &BisectOutcome<K>, out: &[u32]) -> WorkCounters {
    let mut work = WorkCounters::default();
    work.sweep(m);
    for _ in 0..outcome.iterations {
        work.sweep(m);
    }
    if outcome.exit != BisectExit::MaxIter && outcome.count_at_hi.is_none() {
        work.sweep(m);
    }
    work.select_pass(out, m);
    work
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::{Options, topk_row};
    use crate::oracle::canonical_indices;
    use crate::order::{key_of_ordered, ordered_value_of_key};

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

    use crate::order::{Element, keys_and_range_into};
    use half::{bf16, f16};

    /// Keys, range and a fresh bracket of an `f32` row in largest mode.
    fn bracket_of(row: &[f32]) -> (Vec<u32>, Bracket<u32>) {
        let mut keys = vec![0u32; row.len()];
        let (lo_key, hi_key) = keys_and_range_into(row, Mode::Largest, &mut keys);
        (keys, Bracket::new(lo_key, hi_key, row.len()))
    }

    fn hinted(row: &[f32], k: usize, hint: f32, mode: Mode) -> (Vec<u32>, u32) {
        let opts = Options { mode, sorted: false };
        let mut scratch = Scratch::default();
        let mut out = vec![0; k];
        let stats = Bisect::exact().select_hinted(row, k, mode, Some(hint), &mut scratch, &mut out);
        assert_eq!(out, topk_row(&Bisect::exact(), row, k, opts).unwrap().indices);
        (out, stats.iterations.unwrap())
    }

    #[test]
    fn hint_at_the_threshold_ends_the_search() {
        // 0..=1023, k = 100: the threshold is 924; the hint test there counts 99 above, 100
        // at least: a hit.
        let row: Vec<f32> = (0..1024).map(|i| i as f32).collect();
        let (_, it) = hinted(&row, 100, 924.0, Mode::Largest);
        let (_, plain) = run(&Bisect::exact(), &row, 100, Mode::Largest);
        assert_eq!(it, 1);
        assert!(plain > 1, "{plain}");
        // Ties straddling the k-th value: 3.0 six times, k = 3 takes three of them. The hint
        // test counts 1 above and 7 at least: converged on the key of 3.0 in one test.
        let row = [3.0, 1.0, 3.0, 8.0, 3.0, 3.0, 3.0, 0.0, 3.0];
        let (keys, mut b) = bracket_of(&row);
        let step = hint_test::<f32>(&keys, 3, 3.0, &mut b);
        assert_eq!(step, HintStep::Ended(BisectExit::Converged));
        let three = key_of_ordered(3.0);
        assert_eq!(
            (b.lo_key, b.hi_key, b.count_at_hi, b.iterations),
            (three, three + 1, Some(1), 1)
        );
        assert_eq!(hinted(&row, 3, 3.0, Mode::Largest), (vec![0, 2, 3], 1));
        // Smallest mode: the hint is a value of the row, not its negation.
        assert_eq!(hinted(&row, 2, 1.0, Mode::Smallest).1, 1);
    }

    #[test]
    fn useless_hints_leave_the_search_without_one() {
        let row = [0.0, 3.5, 2.0, 8.0, 1.0];
        let plain = run(&Bisect::exact(), &row, 2, Mode::Largest);
        // NaN, below the minimum, at the minimum, above the maximum: no test.
        for hint in [f32::NAN, -f32::NAN, -5.0, 0.0, 8.5, f32::INFINITY, f32::NEG_INFINITY] {
            assert_eq!(hinted(&row, 2, hint, Mode::Largest), plain, "hint {hint}");
        }
        // Bounds one key apart: no test either.
        let a = 1.0f32;
        let row = [a, f32::from_bits(a.to_bits() + 1), a];
        assert_eq!(hinted(&row, 1, a, Mode::Largest).1, 0);
    }

    #[test]
    fn window_tests_gallop_away_from_the_hint() {
        let row: Vec<f32> = (0..1024).map(|i| i as f32).collect();
        // Hint 950 is above the threshold 924: 74 values are >= 950, so hi = 950 (below).
        let (keys, mut b) = bracket_of(&row);
        assert_eq!(hint_test::<f32>(&keys, 100, 950.0, &mut b), HintStep::Side(HintSide::Below));
        assert_eq!((b.hi_key, b.count_at_hi), (key_of_ordered(950.0), Some(74)));
        // Window 1: 950 - 950/1024 = 949.07 counts 74 < 100, hi moves again; window 2: 1/128
        // of [0, 949.07] below it, 941.66, counts 82 < 100, hi moves again; window 3: 1/16 of
        // [0, 941.66] below it, 882.81, counts 141 > 100: lo moves, the window holds 924.
        assert_eq!(window_tests::<f32>(&keys, 100, HintSide::Below, &mut b), None);
        let w1 = window_threshold(0.0, 950.0, 10, HintSide::Below);
        let w2 = window_threshold(0.0, w1, 7, HintSide::Below);
        let w3 = window_threshold(0.0, w2, 4, HintSide::Below);
        assert_eq!((w1.floor(), w2.floor(), w3.floor()), (949.0, 941.0, 882.0));
        assert_eq!((b.lo_key, b.hi_key), (key_of_ordered(w3), key_of_ordered(w2)));
        assert_eq!((b.iterations, b.count_at_hi), (4, Some(82)));
        // Hint 900 is below: 123 values are above it, lo = 900 + 1 ulp (above); the three
        // windows (900.12, 901.08 and 908.70) still count more than 100, so lo moves three
        // times.
        let (keys, mut b) = bracket_of(&row);
        assert_eq!(hint_test::<f32>(&keys, 100, 900.0, &mut b), HintStep::Side(HintSide::Above));
        assert_eq!(b.lo_key, key_of_ordered(900.0) + 1);
        assert_eq!(window_tests::<f32>(&keys, 100, HintSide::Above, &mut b), None);
        assert_eq!((b.iterations, b.count_at_hi, b.hi_key), (4, None, key_of_ordered(1023.0)));
        assert_eq!(ordered_value_of_key(b.lo_key).floor(), 908.0);
        // The whole search, exact either way.
        for hint in [900.0, 950.0, 923.5, 924.5, 0.5, 1022.0] {
            let (idx, it) = hinted(&row, 100, hint, Mode::Largest);
            assert_eq!(idx, (924..1024).collect::<Vec<u32>>());
            assert!(it <= MAX_ITERATIONS, "hint {hint}: {it}");
        }
    }

    #[test]
    fn hints_on_sixteen_bit_rows() {
        let row = f16s(&[0.0, 3.5, 2.0, 8.0, 1.0, 2.0, 7.0]);
        let mut scratch = Scratch::default();
        for (hint, want_it) in [(2.0, 1), (f32::NAN, 0), (2.5, 0)] {
            let mut out = vec![0; 4];
            let stats = Bisect::exact().select_hinted(
                &row,
                4,
                Mode::Largest,
                Some(hint),
                &mut scratch,
                &mut out,
            );
            assert_eq!(out, [1, 2, 3, 6], "hint {hint}");
            if want_it > 0 {
                assert_eq!(stats.iterations, Some(want_it), "hint {hint}");
            }
        }
    }

    /// The search outcome on the own keys of `row`.
    fn outcome<E: Element>(b: &Bisect, row: &[E], k: usize, mode: Mode) -> BisectOutcome<E::Key> {
        let mut keys = vec![E::Key::default(); row.len()];
        let range = keys_and_range_into(row, mode, &mut keys);
        b.search_keys::<E>(&keys, range, k)
    }

    fn f16s(values: &[f32]) -> Vec<f16> {
        values.iter().map(|&v| f16::from_f32(v)).collect()
    }

    #[test]
    fn bounds_per_type() {
        assert_eq!(max_iterations::<f32>(), 64);
        assert_eq!(MAX_ITERATIONS, 64);
        assert_eq!(max_iterations::<f16>(), 48);
        assert_eq!(max_iterations::<bf16>(), 48);
    }

    #[test]
    fn sixteen_bit_value_phase_is_the_f32_rows() {
        // The hand-checked rows above, in f16 and bf16: the same tests, the same counts.
        for (row, k, want) in [
            (vec![0.0, 5.0, 1.0, 8.0, 2.0], 2, (vec![1, 3], 1)),
            (vec![0.0, 3.5, 2.0, 8.0, 1.0], 2, (vec![1, 3], 3)),
        ] {
            assert_eq!(run(&Bisect::exact(), &row, k, Mode::Largest), want);
            let h = topk_row(&Bisect::exact(), &f16s(&row), k, Options::default()).unwrap();
            assert_eq!((h.indices, h.stats.iterations.unwrap()), want);
            let b: Vec<bf16> = row.iter().map(|&v| bf16::from_f32(v)).collect();
            let b = topk_row(&Bisect::exact(), &b, k, Options::default()).unwrap();
            assert_eq!((b.indices, b.stats.iterations.unwrap()), want);
        }
        // Thresholds are f32 midpoints, not 16-bit values: 1 + 2^-11 lies between two f16
        // neighbours, and the test there counts what the f32 row's test counts.
        let one_ulp = f16::from_bits(0x3C01).to_f32();
        let row = [1.0, one_ulp, 1.0, one_ulp, 0.0];
        let o32 = outcome(&Bisect::exact(), &row, 2, Mode::Largest);
        let o16 = outcome(&Bisect::exact(), &f16s(&row), 2, Mode::Largest);
        assert_eq!((o16.iterations, o16.exit), (o32.iterations, o32.exit), "{o32:?} {o16:?}");
        assert_eq!(o16.key_phase_iterations, 0, "{o32:?} {o16:?}");
        assert_eq!(o16.hi_key, f16::from_bits(0x3C01).key_largest());
    }

    #[test]
    fn sixteen_bit_key_phase_bisects_the_16_bit_keys() {
        // -inf is a bound: straight to the key phase. Keys: -inf 0x03FF, ±0 0x8000,
        // 1.0 0xBC00, +inf 0xFC00, NaN 0xFFFF. The first key midpoint 0x03FF + 0xFC00 / 2 =
        // 0x81FF counts 1.0, +inf and NaN: k = 3 on the first test.
        let row = f16s(&[f32::NEG_INFINITY, 1.0, f32::NAN, f32::INFINITY, -0.0, 0.0]);
        let o = outcome(&Bisect::exact(), &row, 3, Mode::Largest);
        assert_eq!((o.iterations, o.key_phase_iterations, o.exit), (1, 1, BisectExit::Hit));
        assert_eq!((o.lo_key, o.hi_key), (0x03FF, 0x81FF));
        for k in 0..=row.len() {
            for mode in [Mode::Largest, Mode::Smallest] {
                let r = topk_row(&Bisect::exact(), &row, k, Options { mode, sorted: false });
                let r = r.unwrap();
                assert_eq!(r.indices, canonical_indices(&row, k, mode), "k={k} {mode:?}");
                assert!(r.stats.iterations.unwrap_or(0) <= 16, "key tests only, 16 at most");
            }
        }
    }

    #[test]
    fn sixteen_bit_worst_case_spread_is_bounded_by_48() {
        // The k-th value is a subnormal next to zero while the range spans ±65504: the value
        // budget runs out (log2(65504 / 2^-24) > 32) and the 16-bit key phase finishes.
        let tiny = f16::from_bits(1).to_f32();
        let row = f16s(&[-65504.0, 0.0, tiny, 2.0 * tiny, 65504.0]);
        for k in 1..=row.len() {
            let r = topk_row(&Bisect::exact(), &row, k, Options::default()).unwrap();
            assert_eq!(r.indices, canonical_indices(&row, k, Mode::Largest), "k={k}");
            assert!(r.stats.iterations.unwrap() <= 48, "k={k}");
        }
        let o = outcome(&Bisect::exact(), &row, 3, Mode::Largest);
        assert_eq!(o.iterations - o.key_phase_iterations, VALUE_PHASE_LIMIT, "{o:?}");
        assert!((1..=16).contains(&o.key_phase_iterations), "{o:?}");
    }

    #[test]
    fn sixteen_bit_early_stopping() {
        // Finite rows: the f32 row's value steps, so the same selection.
        let row = [0.0, 5.0, 1.0, 8.0, 2.0, 5.0, 7.5];
        for n in 0..12 {
            let want = run(&Bisect::early_stopping(n), &row, 3, Mode::Largest);
            let got = topk_row(&Bisect::early_stopping(n), &f16s(&row), 3, Options::default());
            let got = got.unwrap();
            assert_eq!((got.indices, got.stats.iterations.unwrap()), want, "n={n}");
        }
        // Non-finite rows: 16-bit key midpoints. One step from (0x03FF, 0xFFFF) tests 0x81FF,
        // which 1.0, +inf and NaN reach: cnt 3 >= k = 2, so lo = 0x81FF and the first two of
        // them by index are taken.
        let row = f16s(&[f32::NEG_INFINITY, 1.0, f32::NAN, f32::INFINITY, -0.0, 0.0]);
        let o = outcome(&Bisect::early_stopping(1), &row, 2, Mode::Largest);
        assert_eq!((o.lo_key, o.hi_key, o.key_phase_iterations), (0x81FF, 0xFFFF, 1));
        let r = topk_row(&Bisect::early_stopping(1), &row, 2, Options::default()).unwrap();
        assert_eq!(r.indices, [1, 2]);
    }
}
