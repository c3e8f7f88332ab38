//! Stage 2, `search_threshold` (the CUDA kernel's `search.cuh`, docs/kernel.md): exact
//! (Algorithm 1: `search_exact`, then `finish_exact` — the value phase, then the key phase)
//! or early stopping (Algorithm 2, `search_early_stopping`), over any row type ([`Row`]).
//! Every test is one `count_ge`, uniform over the row's lanes, so the bracket is a plain
//! value here as it is in every lane there. In exact mode a row that may narrow leaves the
//! value phase once a count at the new `lo_key` finds at most its cap of keys
//! ([`Exit::Narrow`]); the kernel narrows it and `finish_exact` goes on over the candidates.
//!
//! The bracket holds the row's own keys (docs/kernel.md, "16-bit rows"; topk-ref's `bisect`):
//! f32 keys for an f32 row, 16-bit keys for a 16-bit row. The value phase computes its
//! thresholds in f32 for every type, tests the stall on their f32 keys, and counts from the own
//! key of the least value of the type `>=` the threshold (`own_key_at_least`); the key phase
//! halves own keys, so a 16-bit row takes at most 32 + 16 tests.
//!
//! A row with a threshold hint (docs/contract.md §5; the ragged units only, exact mode) starts
//! with `hint_test` and `window_tests` (`search_hinted`), topk-ref's `bisect` "Hints" step for
//! step, then goes on with `finish_exact` from the bracket they leave. The hint test's two
//! counts (`> t` and `>= t`) are two counting passes here and in the kernel, one test.

use topk_ref::EpsilonMode;
use topk_ref::bisect::{HINT_WINDOW_SHIFTS, VALUE_PHASE_LIMIT};

use crate::engine::error::SimError;
use crate::engine::warp::Warp;
use crate::rtopk::args::{KernelArgs, SearchExit};
use crate::rtopk::order::{
    ElemType, check_int_hint_key, check_key_at_least, hint_key, key16_of_number, midpoint,
    number_key, ordered_value_of_own_key, own_key_at_least, value_at_least,
};
use crate::rtopk::record::{Moved, Phase, TraceStep, Tracer};
use crate::rtopk::rows::{Row, count_ge};

/// How a search ended (`EXIT_*`), or that the row narrows first (`EXIT_NARROW`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exit {
    /// A search exit.
    Done(SearchExit),
    /// Not an exit: the row goes on with its candidates (`narrow_row`).
    Narrow,
}

/// Which value phase applies (`VALUE_NONE`, `VALUE_PLAIN`, `VALUE_GUARDED`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Value {
    None,
    /// eps = 0 and |lo|, |hi| <= FLT_MAX / 2: without the precision test and midpoint's
    /// overflow guard, which cannot fire there.
    Plain,
    Guarded,
}

/// The search's state (the CUDA kernel's `struct Search`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Search {
    pub(crate) lo_key: u32,
    pub(crate) hi_key: u32,
    pub(crate) count_at_hi: u32,
    pub(crate) has_count_at_hi: bool,
    pub(crate) exit: Exit,
    pub(crate) iterations: u32,
    /// The value phase's bracket and precision.
    pub(crate) lo: f32,
    pub(crate) hi: f32,
    pub(crate) eps: f32,
    pub(crate) value: Value,
    /// `count_ge(lo_key)`: the row's length until a test raises `lo`.
    pub(crate) count_at_lo: u32,
    /// [`recall_met`]'s slack (docs/contract.md §6); -1: no recall target.
    pub(crate) slack: i64,
    /// Nobody asked for the iteration count (the launch's `out_iter` is null): a 16-bit value
    /// phase ends once its bracket's keys are adjacent ([`value_phase`]). The kernel keeps it
    /// in the slack (`SLACK_UNCOUNTED`, a second value for no recall target), which saves the
    /// 16-bit units a register.
    pub(crate) uncounted: bool,
    /// The row's element type (`ELEM_KIND`): whose own keys the bracket holds.
    pub(crate) elem: ElemType,
    /// Whether the search bisected keys (the simulator's coverage; no kernel state).
    pub(crate) key_phase: bool,
    /// Whether the value phase ended at adjacent keys (`uncounted`; the simulator's coverage).
    pub(crate) adjacent: bool,
}

impl Search {
    pub(crate) fn new<R: Row>(
        row: &R,
        (lo_key, hi_key): (u32, u32),
        exit: SearchExit,
        iterations: u32,
        elem: ElemType,
    ) -> Self {
        Self {
            elem,
            key_phase: false,
            adjacent: false,
            lo_key,
            hi_key,
            count_at_hi: 0,
            has_count_at_hi: false,
            exit: Exit::Done(exit),
            iterations,
            lo: 0.0,
            hi: 0.0,
            eps: 0.0,
            value: Value::None,
            count_at_lo: row.m(),
            slack: -1,
            uncounted: false,
        }
    }

    /// How the search ended (a narrowed row's search has ended by the time anyone asks).
    pub(crate) fn search_exit(&self) -> SearchExit {
        match self.exit {
            Exit::Done(e) => e,
            Exit::Narrow => SearchExit::Converged,
        }
    }
}

/// `update`: Algorithm 1's three-way update; returns `true` on a hit.
pub(crate) fn update(s: &mut Search, t: u32, cnt: u32, k: u32) -> bool {
    s.iterations = s.iterations.wrapping_add(1);
    if cnt < k {
        (s.hi_key, s.count_at_hi, s.has_count_at_hi) = (t, cnt, true);
    } else if cnt > k {
        (s.lo_key, s.count_at_lo) = (t, cnt);
    } else {
        (s.hi_key, s.count_at_hi, s.has_count_at_hi) = (t, cnt, true);
        return true;
    }
    false
}

/// `recall_slack`: how many of the top `k` a recall target `r` lets the search miss,
/// `k - ceil(r k)` with `r k` in f32 (topk-ref's `Bisect::recall_slack`); -1 without a target
/// or where it allows no miss (exact mode itself).
pub(crate) fn recall_slack(a: &KernelArgs, k: u32) -> i64 {
    match a.bisect.recall {
        Some(r) if r > 0.0 => {
            let need = (r * k as f32).ceil() as u32;
            if need >= k { -1 } else { i64::from(k - need) }
        }
        _ => -1,
    }
}

/// `recall_met`, the recall rule (topk-ref's `bisect`, "Recall"): the selection of the
/// bracket as it stands takes every key `>= hi` (all in the top k) and fills from `[lo, hi)`,
/// so it misses at most `min(k - cnt(hi), cnt(lo) - k)` of the top k; an unknown `cnt(hi)`
/// counts as 0.
fn recall_met(s: &Search, k: u32) -> bool {
    let above = i64::from(k) - i64::from(if s.has_count_at_hi { s.count_at_hi } else { 0 });
    let below = i64::from(s.count_at_lo) - i64::from(k);
    s.slack >= 0 && above.min(below) <= s.slack
}

fn moved(hit: bool, cnt: u32, k: u32) -> Moved {
    if hit {
        Moved::Hit
    } else if cnt < k {
        Moved::Hi
    } else {
        Moved::Lo
    }
}

/// The trace of a test in value space: iteration `iteration` at `thres` (own key `t`) from
/// the bracket `before`, `cnt` keys at or above it.
fn trace_value(
    tr: Tracer<'_>,
    iteration: u32,
    before: (u32, u32),
    (thres, t, cnt, k): (f32, u32, u32, u32),
) {
    tr.step(TraceStep {
        iteration,
        phase: Phase::Value,
        lo_key: before.0,
        hi_key: before.1,
        thres: Some(thres),
        t,
        cnt,
        moved: moved(cnt == k, cnt, k),
    });
}

/// A value-phase step once its count `cnt` at `thres` (own key `t`) is known: the iteration,
/// its trace (the bracket `before` it), then on a hit the search's end (returns `true`), else
/// the three-way update without branches, the bracket's end on the count's side moved to
/// `thres`.
pub(crate) fn value_step(
    s: &mut Search,
    (lo, hi): (&mut f32, &mut f32),
    (thres, t, cnt, k): (f32, u32, u32, u32),
    before: (u32, u32),
    tr: Tracer<'_>,
) -> bool {
    s.iterations = s.iterations.wrapping_add(1);
    trace_value(tr, s.iterations, before, (thres, t, cnt, k));
    if cnt == k {
        (s.hi_key, s.count_at_hi, s.has_count_at_hi) = (t, cnt, true);
        s.exit = Exit::Done(SearchExit::Hit);
        return true;
    }
    if cnt < k {
        (s.hi_key, *hi) = (t, thres);
    } else {
        (s.lo_key, *lo) = (t, thres);
    }
    false
}

/// `value_phase`: the paper's bisection on ordered values over the finite bracket
/// `[s.lo, s.hi]`. Returns `true` when the search is over (a hit, the recall target or the
/// precision reached) or the row is to be narrowed, `false` when the key phase takes over.
/// With a recall target (`s.slack >= 0`, the kernel's `RECALL`) the phase keeps the counts at
/// `lo` and `hi` and tests the recall rule before each threshold; without one it moves the
/// bracket without them.
///
/// Without one, on a 16-bit row whose count nobody asked for (`s.uncounted`, the kernel's
/// `UNCOUNTED`), the phase ends once the bracket's own keys are adjacent: every later test
/// lands on one of the two keys and moves neither (or hits at a bound no test has set, where
/// the cut takes the same elements), while the f32 bracket would halve down to adjacent
/// floats, counting each time; the key phase then ends at once, with the same keys.
/// docs/contract.md §3 counts those steps, so a row whose count is asked makes them.
async fn value_phase<R: Row>(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &mut R,
    s: &mut Search,
    plain: bool,
    tr: Tracer<'_>,
) -> Result<bool, SimError> {
    let k = a.k as u32;
    let (mut lo, mut hi) = (s.lo, s.hi);
    let recall = s.slack >= 0;
    let uncounted = !recall && s.uncounted; // read on 16-bit rows alone
    while s.iterations < VALUE_PHASE_LIMIT {
        if recall && recall_met(s, k) {
            s.exit = Exit::Done(SearchExit::Recall);
            return Ok(true);
        }
        if !plain && hi - lo <= s.eps {
            s.exit = Exit::Done(SearchExit::Precision);
            return Ok(true);
        }
        let thres = if plain { (lo + hi) * 0.5 } else { midpoint(lo, hi) };
        let (t, value) = if s.elem == ElemType::F32 {
            let t = number_key(thres); // key_of_ordered: thres is finite here, never NaN
            if !(s.lo_key < t && t < s.hi_key) {
                return Ok(false); // adjacent floats: stall
            }
            (t, None)
        } else {
            // the stall test on the bounds' f32 keys (as float compares: lo, thres and hi are
            // never NaN, and -0.0 == +0.0 as their keys are), then the least value of the type
            // at or above thres (finite: lo and hi are values of the type) and its own key, the
            // key the test counts from
            if !(lo < thres && thres < hi) {
                return Ok(false);
            }
            if uncounted && s.hi_key.wrapping_sub(s.lo_key) <= 1 {
                s.adjacent = true;
                return Ok(false); // adjacent keys: converged
            }
            let c = value_at_least(a, s.elem, thres);
            let t = key16_of_number(c);
            let label = "value_phase: own_key_at_least is topk-ref's key_at_least";
            check_key_at_least(w, s.elem, thres, t, label)?;
            // a packed row compares with the value itself, other rows count at its key
            // (count_at_value)
            (t, Some(c))
        };
        let before = (s.lo_key, s.hi_key);
        let cnt = match value {
            Some(c) => row.count_at_value(w, a, c, t).await?,
            None => row.count_ge_positive(w, a, t).await?,
        };
        if value_step(s, (&mut lo, &mut hi), (thres, t, cnt, k), before, tr) {
            return Ok(true);
        }
        let below = cnt < k;
        if recall {
            // the counts the recall rule reads
            if below {
                (s.count_at_hi, s.has_count_at_hi) = (cnt, true);
            } else {
                s.count_at_lo = cnt;
            }
        }
        let cap = row.narrow_cap();
        if cap != 0 && !below && cnt <= cap {
            (s.lo, s.hi, s.count_at_lo, s.exit) = (lo, hi, cnt, Exit::Narrow);
            return Ok(true);
        }
    }
    Ok(false)
}

/// `finish_exact`: the value phase (where it applies), then the key phase. A row that leaves
/// the value phase to be narrowed comes back here as its [`crate::rtopk::rows::CandRow`].
pub(crate) async fn finish_exact<R: Row>(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &mut R,
    s: &mut Search,
    tr: Tracer<'_>,
) -> Result<(), SimError> {
    let value = !s.elem.integer() && s.value != Value::None;
    if value && value_phase(w, a, row, s, s.value == Value::Plain, tr).await? {
        return Ok(());
    }
    // key phase: only where the value phase cannot proceed (halving own keys)
    let k = a.k as u32;
    while s.hi_key.wrapping_sub(s.lo_key) > 1 {
        if recall_met(s, k) {
            s.exit = Exit::Done(SearchExit::Recall);
            return Ok(());
        }
        s.key_phase = true;
        let t = s.lo_key.wrapping_add(s.hi_key.wrapping_sub(s.lo_key) / 2); // > lo_key >= 0
        let before = (s.lo_key, s.hi_key);
        let cnt = row.count_ge_positive(w, a, t).await?;
        let hit = update(s, t, cnt, k);
        tr.step(TraceStep {
            iteration: s.iterations,
            phase: Phase::Key,
            lo_key: before.0,
            hi_key: before.1,
            thres: None,
            t,
            cnt,
            moved: moved(hit, cnt, k),
        });
        if hit {
            s.exit = Exit::Done(SearchExit::Hit);
            return Ok(());
        }
    }
    s.exit = Exit::Done(SearchExit::Converged);
    Ok(())
}

/// `search_exact`: Algorithm 1 with precision ε' from the bracket `[lo_key, hi_key]`.
async fn search_exact<R: Row>(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &mut R,
    (lo_key, hi_key): (u32, u32),
    (elem, counted): (ElemType, bool),
    tr: Tracer<'_>,
) -> Result<Search, SimError> {
    let mut s = Search::new(row, (lo_key, hi_key), SearchExit::Converged, 0, elem);
    s.slack = recall_slack(a, a.k as u32);
    s.uncounted = !counted;
    if lo_key == hi_key {
        return Ok(s);
    }
    // value phase: the paper's bisection on (ordered) values (none on an integer row)
    value_of_bracket(a, &mut s);
    finish_exact(w, a, row, &mut s, tr).await?;
    Ok(s)
}

/// The value phase's kind for the bracket `[s.lo_key, s.hi_key]` in exact mode: its ordered
/// values read from the keys, and plain or guarded as [`search_exact`] decides, where both
/// ends are finite values of a float row; an integer row has none (docs/contract.md §3).
pub(crate) fn value_of_bracket(a: &KernelArgs, s: &mut Search) {
    s.value = Value::None;
    if s.elem.integer() {
        return;
    }
    s.lo = ordered_value_of_own_key(s.elem, s.lo_key);
    s.hi = ordered_value_of_own_key(s.elem, s.hi_key);
    if s.lo.is_finite() && s.hi.is_finite() {
        let precision = a.bisect.precision;
        s.eps = match a.bisect.epsilon_mode {
            EpsilonMode::RelativeToMax => precision * s.hi.abs(),
            EpsilonMode::Absolute => precision,
        };
        let plain = s.eps == 0.0 && s.lo.abs().max(s.hi.abs()) <= f32::from_bits(0x7eff_ffff);
        s.value = if plain { Value::Plain } else { Value::Guarded };
    }
}

/// Where a row's threshold lies after its hint test (`HINT_ABOVE`, `HINT_BELOW`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HintSide {
    /// Above the hint: the test raised `lo`.
    Above,
    /// Below the hint: the test lowered `hi`.
    Below,
}

/// What the hint test did (`HINT_SKIPPED`, `HINT_ENDED`, or a side).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HintStep {
    /// No test: the search runs as without a hint.
    Skipped,
    /// The search ended (`s.exit` says how).
    Ended,
    /// The bracket was cut at the hint; the threshold is on this side of it.
    Side(HintSide),
}

/// `hint_test` (topk-ref's `bisect`, "Hints", step 2): one test at `t`, the own key of the
/// least value of the row's type `>=` the hint's ordered value, counting the keys `> t` and
/// `>= t`, so that a hint at the row's threshold ends the search. Skipped for a NaN hint, a
/// bracket of adjacent keys, or `t` outside `(lo_key, hi_key]`.
async fn hint_test<R: Row>(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &mut R,
    s: &mut Search,
    hint: f32,
    tr: Tracer<'_>,
) -> Result<HintStep, SimError> {
    if hint.is_nan() || s.hi_key.wrapping_sub(s.lo_key) <= 1 {
        return Ok(HintStep::Skipped);
    }
    let t = hint_key(a, s.elem, hint, a.sign());
    if s.elem.integer() {
        check_int_hint_key(w, (s.elem, a.mode), hint, t, (s.lo_key, s.hi_key))?;
    } else {
        let ordered = hint * a.sign(); // exact: a negation in smallest mode
        check_key_at_least(w, s.elem, ordered, t, "hint_test: own_key_at_least is topk-ref's")?;
    }
    if t <= s.lo_key || t > s.hi_key {
        return Ok(HintStep::Skipped);
    }
    let k = a.k as u32;
    // t > lo_key >= 0; nothing lies above the last key, where t + 1 would wrap (on a float
    // row t is a number's key, never that NaN key; on an integer row it is the type's end)
    let (above, at_least) = if t == u32::MAX {
        (0, row.count_ge_positive(w, a, t).await?)
    } else {
        row.count_above_and_at_least(w, a, t).await? // one round where the row can
    };
    s.iterations = s.iterations.wrapping_add(1);
    let before = (s.lo_key, s.hi_key);
    let step = if at_least < k {
        (s.hi_key, s.count_at_hi, s.has_count_at_hi) = (t, at_least, true);
        HintStep::Side(HintSide::Below)
    } else if above > k {
        s.lo_key = t + 1;
        HintStep::Side(HintSide::Above)
    } else if above == k {
        (s.hi_key, s.count_at_hi, s.has_count_at_hi) = (t + 1, above, true);
        s.exit = Exit::Done(SearchExit::Hit);
        HintStep::Ended
    } else if at_least == k {
        // above < k <= at_least: the k-th key is t itself
        (s.hi_key, s.count_at_hi, s.has_count_at_hi) = (t, at_least, true);
        s.exit = Exit::Done(SearchExit::Hit);
        HintStep::Ended
    } else {
        s.lo_key = t;
        if t < s.hi_key {
            (s.hi_key, s.count_at_hi, s.has_count_at_hi) = (t + 1, above, true);
        }
        s.exit = Exit::Done(SearchExit::Converged);
        HintStep::Ended
    };
    // an integer row's hint test is a test at a key (it has no value space)
    let integer = s.elem.integer();
    tr.step(TraceStep {
        iteration: s.iterations,
        phase: if integer { Phase::Key } else { Phase::Value },
        lo_key: before.0,
        hi_key: before.1,
        thres: (!integer).then_some(hint * a.sign()),
        t,
        cnt: at_least,
        moved: match step {
            HintStep::Side(HintSide::Below) => Moved::Hi,
            HintStep::Side(HintSide::Above) => Moved::Lo,
            _ => Moved::Hit,
        },
    });
    Ok(step)
}

/// `window_tests` (topk-ref's `bisect`, "Hints", step 3): a test `2^-s` of the bracket away
/// from the hint's side (`lo + w` above it, `hi - w` below, `w = hi 2^-s - lo 2^-s`), for
/// `s` = 10, 7 then 4 (`HINT_WINDOW_SHIFTS`), while the bracket's ordered values are finite
/// and the threshold lies strictly between them; they end once a test moves the bound on the
/// far side of the hint. Returns `true` when the search is over (a hit).
pub(crate) async fn window_tests<R: Row>(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &mut R,
    s: &mut Search,
    side: HintSide,
    tr: Tracer<'_>,
) -> Result<bool, SimError> {
    let k = a.k as u32;
    if s.elem.integer() {
        return Ok(false); // value-space steps: an integer row has none
    }
    for shift in HINT_WINDOW_SHIFTS {
        let lo = ordered_value_of_own_key(s.elem, s.lo_key);
        let hi = ordered_value_of_own_key(s.elem, s.hi_key);
        if !(lo.is_finite() && hi.is_finite()) {
            return Ok(false);
        }
        let scale = 0.5f32.powi(shift); // exact
        let width = hi * scale - lo * scale;
        let thres = if side == HintSide::Above { lo + width } else { hi - width };
        // strictly between the bounds, as their f32 keys (never NaN; -0.0 == +0.0)
        if !(lo < thres && thres < hi) {
            return Ok(false);
        }
        let t = own_key_at_least(a, s.elem, thres);
        check_key_at_least(w, s.elem, thres, t, "window_tests: own_key_at_least is topk-ref's")?;
        let before = (s.lo_key, s.hi_key);
        let cnt = row.count_ge_positive(w, a, t).await?; // t > lo_key >= 0
        let hit = update(s, t, cnt, k);
        trace_value(tr, s.iterations, before, (thres, t, cnt, k));
        if hit {
            s.exit = Exit::Done(SearchExit::Hit);
            return Ok(true);
        }
        // the far bound moved: the window holds the threshold
        if (cnt < k) == (side == HintSide::Above) {
            return Ok(false);
        }
    }
    Ok(false)
}

/// `search_hinted`: Algorithm 1 (exact mode) from the bracket `[lo_key, hi_key]`, starting
/// with the hint test and the window tests, then `finish_exact` from the bracket they leave
/// (their tests count toward the value phase's budget). A skipped hint test leaves exactly
/// [`search_exact`].
pub(crate) async fn search_hinted<R: Row>(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &mut R,
    (lo_key, hi_key): (u32, u32),
    (elem, counted): (ElemType, bool),
    hint: f32,
    tr: Tracer<'_>,
) -> Result<Search, SimError> {
    let mut s = Search::new(row, (lo_key, hi_key), SearchExit::Converged, 0, elem);
    s.uncounted = !counted;
    let side = match hint_test(w, a, row, &mut s, hint, tr).await? {
        HintStep::Skipped => {
            return search_exact(w, a, row, (lo_key, hi_key), (elem, counted), tr).await;
        }
        HintStep::Ended => return Ok(s),
        HintStep::Side(side) => side,
    };
    if window_tests(w, a, row, &mut s, side, tr).await? {
        return Ok(s);
    }
    s.exit = Exit::Done(SearchExit::Converged);
    if s.lo_key == s.hi_key {
        return Ok(s);
    }
    value_of_bracket(a, &mut s);
    // the value phase moves hi without its count (cut_of counts it where the search ends
    // without a hit): an earlier test's count at hi is dropped, as on the plain path
    s.has_count_at_hi = false;
    finish_exact(w, a, row, &mut s, tr).await?;
    Ok(s)
}

/// `search_early_stopping`: Algorithm 2 with `max_iter = n` two-way steps, no exit on
/// `cnt == k`, and a stop at a fixed point (every remaining step would repeat it).
async fn search_early_stopping<R: Row>(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &mut R,
    (lo_key, hi_key): (u32, u32),
    elem: ElemType,
    max_iter: u32,
    tr: Tracer<'_>,
) -> Result<Search, SimError> {
    let mut s = Search::new(row, (lo_key, hi_key), SearchExit::MaxIter, max_iter, elem);
    // the f32 rows' value steps where both ends are finite values; else (an integer row
    // always) key steps
    let (mut lo, mut hi) = (0.0f32, 0.0f32);
    let mut finite = false;
    if !elem.integer() {
        (lo, hi) = (ordered_value_of_own_key(elem, lo_key), ordered_value_of_own_key(elem, hi_key));
        finite = lo.is_finite() && hi.is_finite();
    }
    let k = a.k as u32;
    for iter in 0..max_iter {
        let (thres, t) = if finite {
            let thres = midpoint(lo, hi);
            let t = own_key_at_least(a, elem, thres); // finite: not NaN
            if elem != ElemType::F32 {
                let label = "search_early_stopping: own_key_at_least is topk-ref's key_at_least";
                check_key_at_least(w, elem, thres, t, label)?;
            }
            (thres, t)
        } else {
            (
                f32::from_bits(0x7fc0_0000),
                s.lo_key.wrapping_add(s.hi_key.wrapping_sub(s.lo_key) / 2),
            )
        };
        let before = (s.lo_key, s.hi_key, lo.to_bits(), hi.to_bits());
        s.key_phase |= !finite;
        let cnt = count_ge(row, w, a, t).await?;
        if cnt < k {
            (s.hi_key, hi) = (t, thres);
        } else {
            (s.lo_key, lo) = (t, thres);
        }
        tr.step(TraceStep {
            iteration: iter + 1,
            phase: if finite { Phase::Value } else { Phase::Key },
            lo_key: before.0,
            hi_key: before.1,
            thres: finite.then_some(thres),
            t,
            cnt,
            moved: moved(false, cnt, k),
        });
        if before == (s.lo_key, s.hi_key, lo.to_bits(), hi.to_bits()) {
            break; // a fixed point: every remaining step repeats this one
        }
    }
    Ok(s)
}

/// `search_threshold`: exact or early stopping, from the row's min and max key, for a row of
/// `elem` (`counted`: whether the launch writes iteration counts, its `out_iter`; `ragged`:
/// whether the row's unit is a ragged twin, `search_of`'s RAGGED); `hint`: the row's threshold
/// hint where the step reads hints (`p.hint[row_id]` of the ragged units' `_hinted` entry
/// points, `search_of`'s HINTED, which the GPU launches for exactly those steps), taken in
/// exact mode with precision 0 and no recall target only (Algorithm 2, a precision and a
/// recall target ignore it, as `bisect` does).
pub(crate) async fn search_threshold<R: Row>(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &mut R,
    range: (u32, u32),
    (elem, counted, ragged): (ElemType, bool, bool),
    hint: Option<f32>,
    tr: Tracer<'_>,
) -> Result<Search, SimError> {
    // `search_of`'s ragged row that selects all it has (k_i = m_i: a row or a ragged split's
    // chunk shorter than its k) in exact mode, its count not asked (docs/contract.md §3's
    // counts are the search's): nothing to search. A bracket of one key, the least, ends the
    // search at once and makes the selection take every key >= it in index order (`cut_of`),
    // the converged search's answer. The ragged units only, as on the GPU.
    if ragged && a.k as u32 == row.m() && a.bisect.max_iter.is_none() && !counted {
        return search_exact(w, a, row, (range.0, range.0), (elem, counted), tr).await;
    }
    match (a.bisect.max_iter, hint) {
        (Some(n), _) => search_early_stopping(w, a, row, range, elem, n, tr).await,
        (None, Some(h)) if a.bisect.precision == 0.0 && a.bisect.recall.is_none() => {
            search_hinted(w, a, row, range, (elem, counted), h, tr).await
        }
        (None, _) => search_exact(w, a, row, range, (elem, counted), tr).await,
    }
}

/// Counts a row's search in the run's coverage (the simulator's report, no kernel state):
/// whether a row of a narrowing kernel narrowed, how the search ended, whether it bisected
/// keys.
pub(crate) fn cover_search(p: &crate::rtopk::params::Params<'_>, s: &Search, narrowed: bool) {
    use crate::rtopk::coverage::Branch;
    if p.plan.narrows {
        p.covered(if narrowed { Branch::Narrowed } else { Branch::NotNarrowed });
    }
    if s.key_phase {
        p.covered(Branch::KeyPhase);
    }
    if s.adjacent {
        p.covered(Branch::AdjacentKeys);
    }
    match s.exit {
        Exit::Done(SearchExit::Hit) => p.covered(Branch::ExitHit),
        Exit::Done(SearchExit::Converged) => p.covered(Branch::ExitConverged),
        Exit::Done(SearchExit::Precision) => p.covered(Branch::ExitPrecision),
        Exit::Done(SearchExit::Recall) => p.covered(Branch::ExitRecall),
        Exit::Done(SearchExit::MaxIter) => p.covered(Branch::EarlyStop),
        Exit::Narrow => {}
    }
}
