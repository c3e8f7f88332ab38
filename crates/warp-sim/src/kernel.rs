//! The RTop-K kernel on the simulator — docs/kernel.md, stage for stage and name for name.
//!
//! One warp selects one row: `row = blockIdx.x * warps_per_block + warp`. Shared memory holds
//! `s_keys[warp * M .. (warp + 1) * M]` for each warp of the block (plus one word per warp that
//! only a seeded bug uses, and, where rows narrow, twice the candidate cap of `s_cand` per
//! warp).
//! The three stages:
//!
//! 1. `load_row` — each lane loads `i = lane, lane + 32, ... < M`, stores `order_key` into
//!    `s_keys[i]` and keeps its own min and max key; `__syncwarp()`.
//! 2. `search_threshold` — `warp_min` / `warp_max` (5 `shfl_xor` steps each), then the exact
//!    bisection (value phase, key phase) or early stopping; every test is `count_ge(t)`, a
//!    per-lane count plus a 5-step `shfl_xor` sum, so every lane holds the same bracket. In
//!    exact mode, rows of [`NARROW_MIN_M`] to [`NARROW_MAX_M`] with `k <` [`CAND_CAP`] — the
//!    rows the CUDA kernel runs on a whole warp with 12 to 32 keys per lane — and rows of
//!    [`BLOCK_NARROW_MIN_M`] to [`BLOCK_NARROW_MAX_M`] with `k <` [`BLOCK_CAND_CAP`] — the
//!    rows it runs on a block of 4 to 8 warps — are narrowed (`narrow_row`) once a value-phase
//!    count at the new `lo_key` finds at most that cap of keys: those keys and their indices go
//!    to `s_cand` (ballot + popc, index order), and the later counts and the selection read
//!    only them.
//! 3. `select_topk` — chunks of 32 in index order: ballots of strong and band elements,
//!    `popc` prefixes with `%lanemask_lt`, and the output written at `row * k + pos`.
//!
//! The float arithmetic is topk-ref's own functions ([`midpoint`], [`key_of_ordered`],
//! [`ordered_value_of_key`], [`order::key`]), applied lane by lane, so
//! thresholds are bit-identical to the CPU reference. Integer arithmetic on device values
//! wraps, as CUDA's `unsigned` does: a seeded bug can produce garbage, never a Rust panic.
//!
//! [`Mutant`] switches sit at the exact lines a seeded bug changes; with `mutant: None` the
//! kernel is the one docs/kernel.md describes.

use topk_ref::bisect::{VALUE_PHASE_LIMIT, midpoint};
use topk_ref::order::{self, Mode, key_of_ordered, ordered_value_of_key};
use topk_ref::{Bisect, EpsilonMode};

use crate::error::SimError;
use crate::lanes::{FULL_MASK, Lanes, WARP_SIZE};
use crate::memory::Global;
use crate::mutant::Mutant;
use crate::trace::{Moved, Phase, RowTrace, TraceChunk, TraceStep};
use crate::warp::Warp;

/// `count_at_hi` before `hi_key` was tested (the doc's `NONE`); no count reaches it because
/// `M <= u32::MAX - 1`.
pub const COUNT_NONE: u32 = u32::MAX;
/// `strong_above` when no element is strong.
const NO_STRONG: u32 = u32::MAX;
/// The five `shfl_xor` offsets of a butterfly reduction over 32 lanes.
const BUTTERFLY: [u32; 5] = [16, 8, 4, 2, 1];
/// Most candidates a row narrows to (`narrow_row`); `k` must be below it.
pub const CAND_CAP: usize = 128;
/// Narrowest row that narrows: the CUDA kernel's whole-warp rows of 12 keys per lane and more
/// (rows of up to 256 run two or four to a warp there).
pub const NARROW_MIN_M: usize = 257;
/// Widest whole-warp row that narrows: 32 keys per lane (the CUDA kernel's 48- to 96-key
/// warp rows do not narrow).
pub const NARROW_MAX_M: usize = 1024;
/// Most candidates a block row narrows to (`rtopk_block_rows_narrow` in the CUDA kernel, where
/// one warp of the block finishes the search and the selection over them); `k` must be below it.
pub const BLOCK_CAND_CAP: usize = 512;
/// Narrowest block row that narrows: blocks of 4 warps (the CUDA kernel's default launch
/// shapes run every row wider than 3072 on a block, 32 keys per thread).
pub const BLOCK_NARROW_MIN_M: usize = 3073;
/// Widest block row that narrows: blocks of 8 warps.
pub const BLOCK_NARROW_MAX_M: usize = 8192;

/// The kernel's parameters (`__global__` arguments).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelArgs {
    /// Rows.
    pub n: usize,
    /// Row width (`M >= 1`).
    pub m: usize,
    /// Values selected per row (`1 <= k <= M`).
    pub k: usize,
    /// Largest or smallest.
    pub mode: Mode,
    /// Exact (precision ε'), or early stopping when `max_iter` is set.
    pub bisect: Bisect,
    /// A seeded bug, or `None` for the kernel of docs/kernel.md.
    pub mutant: Option<Mutant>,
}

impl KernelArgs {
    fn has(&self, m: Mutant) -> bool {
        self.mutant == Some(m)
    }

    /// Shared words per block for `warps` warps: the rows' keys and one scratch word per warp,
    /// then, where rows narrow, each warp's `s_cand` (candidate keys, then their indices).
    pub fn shared_words(&self, warps: u32) -> usize {
        let cand = 2 * self.cand_cap().unwrap_or(0);
        warps as usize * (self.m + 1 + cand)
    }

    /// The most candidates a row may be narrowed to, where it may be: in exact mode,
    /// [`CAND_CAP`] for `NARROW_MIN_M <= M <= NARROW_MAX_M` and `k < CAND_CAP`, and
    /// [`BLOCK_CAND_CAP`] for `BLOCK_NARROW_MIN_M <= M <= BLOCK_NARROW_MAX_M` and
    /// `k < BLOCK_CAND_CAP`.
    pub fn cand_cap(&self) -> Option<usize> {
        if self.bisect.max_iter.is_some() {
            return None;
        }
        let warp_row = (NARROW_MIN_M..=NARROW_MAX_M).contains(&self.m) && self.k < CAND_CAP;
        let block_row =
            (BLOCK_NARROW_MIN_M..=BLOCK_NARROW_MAX_M).contains(&self.m) && self.k < BLOCK_CAND_CAP;
        if warp_row {
            Some(CAND_CAP)
        } else if block_row {
            Some(BLOCK_CAND_CAP)
        } else {
            None
        }
    }

    /// Whether a row may be narrowed to its candidates ([`KernelArgs::cand_cap`]).
    pub fn narrows(&self) -> bool {
        self.cand_cap().is_some()
    }
}

/// The kernel's output buffers in global memory.
#[derive(Clone, Debug)]
pub struct KernelOut {
    /// `out_idx[row * k + j]`.
    pub out_idx: Global<u32>,
    /// `out_val[row * k + j]`: the input's bits at `out_idx`.
    pub out_val: Global<f32>,
    /// `iterations[row]` (SPEC §3).
    pub iterations: Global<u32>,
}

impl KernelOut {
    /// Zeroed outputs for `n` rows of `k`.
    pub fn new(n: usize, k: usize) -> Self {
        Self {
            out_idx: Global::new("out_idx", n * k, 0),
            out_val: Global::new("out_val", n * k, 0.0),
            iterations: Global::new("iterations", n, 0),
        }
    }
}

/// Why the search stopped (docs/kernel.md's exits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchExit {
    /// A test counted exactly k.
    Hit,
    /// The bracket cannot shrink.
    Converged,
    /// `hi - lo <= eps` (precision > 0).
    Precision,
    /// Early stopping ran its steps.
    MaxIter,
}

/// The bracket every lane holds (the same values in all lanes).
#[derive(Clone, Copy, Debug)]
struct Bracket {
    lo_key: Lanes<u32>,
    hi_key: Lanes<u32>,
    count_at_hi: Lanes<u32>,
    iterations: Lanes<u32>,
}

/// What the selection takes: every key above `strong_above`, then the first `k - strong_count`
/// by index of the band `band_lo ..= strong_above` (warp-uniform registers).
struct SelectionBounds {
    strong_above: Lanes<u32>,
    band_lo: Lanes<u32>,
    strong_count: Lanes<u32>,
}

/// Registers the load stage leaves to the search.
struct Loaded {
    lane_min: Lanes<u32>,
    lane_max: Lanes<u32>,
}

/// Where `count_ge` and `select_topk` read the row's keys: `s_keys[0..M]`, key `j` being
/// element `j`; or, once the row is narrowed, its `n` candidates `s_cand[0..n]`, whose element
/// indices are `s_cand[cap..cap + n]` (`cap`: the row's candidate cap).
#[derive(Clone, Copy, Debug)]
struct Keys {
    base: usize,
    len: usize,
    narrowed: bool,
    cap: usize,
}

impl Keys {
    /// The row's own keys.
    fn row(s_keys: usize, m: usize) -> Self {
        Self { base: s_keys, len: m, narrowed: false, cap: 0 }
    }
}

/// The kernel body for one warp. `trace` records the row's journey when given.
pub fn rtopk_kernel(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    x: &[f32],
    out: &mut KernelOut,
    mut trace: Option<&mut RowTrace>,
) -> Result<(), SimError> {
    let row = w.block_idx() as usize * w.warps_per_block() as usize + w.warp_idx() as usize;
    if row >= a.n {
        // The partial last block: warps without a row return at once.
        w.exit();
        return Ok(());
    }
    let s_keys = w.warp_idx() as usize * a.m;
    if a.has(Mutant::IdleLanesExitEarly) {
        // BUG: lanes without an element "save work" by returning; the reductions below then
        // read lanes that no longer exist.
        let idle = w.lane_id().map(|l| l as usize >= a.m);
        w.exit_where(&idle, "kernel: if (lane >= M) return")?;
    }
    let loaded = load_row(w, a, x, row, s_keys)?;
    if let Some(t) = trace.as_deref_mut() {
        t.keys = w.peek_shared(s_keys, a.m);
    }
    let cap = a.cand_cap().unwrap_or(0);
    let s_cand = w.warps_per_block() as usize * (a.m + 1) + w.warp_idx() as usize * 2 * cap;
    let mut keys = Keys::row(s_keys, a.m);
    let (bracket, exit) = search_threshold(w, a, &mut keys, s_cand, &loaded, trace.as_deref_mut())?;
    select_topk(w, a, x, out, row, keys, &bracket, exit, trace)?;
    let lane0 = w.lane_id().map(|l| l == 0);
    let saved = w.push_active(&lane0, "kernel: if (lane == 0)")?;
    let addr = Lanes::splat(row);
    w.st_global(&mut out.iterations, &addr, &bracket.iterations, "kernel: iterations[row]")?;
    w.pop_active(saved);
    Ok(())
}

// ----- stage 1 ------------------------------------------------------------------------------

/// Stage 1 (`load_row`): keys into `s_keys`, per-lane min and max key.
fn load_row(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    x: &[f32],
    row: usize,
    s_keys: usize,
) -> Result<Loaded, SimError> {
    let lane = w.lane_id().map(|l| l as usize);
    let mut lane_min = Lanes::splat(u32::MAX);
    let mut lane_max = Lanes::splat(0u32);
    // BUG (LoadPastM): the loop bound rounded up to whole chunks.
    let end = if a.has(Mutant::LoadPastM) { a.m.next_multiple_of(WARP_SIZE) } else { a.m };
    for base in (0..end).step_by(WARP_SIZE) {
        let i = lane.map(|l| base + l);
        // The last chunk is partial: lanes with i >= M skip it.
        let saved = w.push_active_mask(lanes_below(end - base));
        let xv = w.ld_global(x, &i.map(|i| row * a.m + i), "load_row: x[row*M + i]")?;
        let key = xv.map(|v| order::key(v, a.mode));
        w.st_shared(&i.map(|i| s_keys + i), &key, "load_row: s_keys[i] = key")?;
        let (new_min, new_max) = (lane_min.zip(&key, u32::min), lane_max.zip(&key, u32::max));
        w.assign(&mut lane_min, &new_min);
        w.assign(&mut lane_max, &new_max);
        w.pop_active(saved);
    }
    if !a.has(Mutant::MissingSyncwarpAfterLoad) {
        w.syncwarp(FULL_MASK, "load_row: __syncwarp()")?;
    }
    Ok(Loaded { lane_min, lane_max })
}

// ----- stage 2 ------------------------------------------------------------------------------

/// A warp-wide reduction: 5 `shfl_xor` steps; every lane ends with the result.
fn warp_reduce(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    v: Lanes<u32>,
    op: fn(u32, u32) -> u32,
    label: &'static str,
) -> Result<Lanes<u32>, SimError> {
    let mut v = v;
    if a.has(Mutant::BroadcastFromWrongLane) {
        // BUG: a shfl_down tree leaves the result in lane 0, but lane 31 is broadcast.
        for offset in BUTTERFLY {
            let other = w.shfl_down_sync(FULL_MASK, &v, offset, 32, label)?;
            v = v.zip(&other, op);
        }
        return w.shfl_sync(FULL_MASK, &v, 31, 32, label);
    }
    for offset in BUTTERFLY {
        // BUG (WrongShuffleOffset): offsets 32, 16, 8, 4, 2 — lane pairs 2j, 2j+1 never meet.
        let offset = if a.has(Mutant::WrongShuffleOffset) { offset * 2 } else { offset };
        let other = w.shfl_xor_sync(FULL_MASK, &v, offset, 32, label)?;
        v = v.zip(&other, op);
    }
    Ok(v)
}

fn add(a: u32, b: u32) -> u32 {
    a.wrapping_add(b)
}

/// `count_ge(t)`: each lane counts its `keys[i] >= t` (the row's, or its candidates'), then
/// the warp sums the counts.
fn count_ge(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    keys: Keys,
    t: &Lanes<u32>,
) -> Result<Lanes<u32>, SimError> {
    let lane = w.lane_id().map(|l| l as usize);
    let mut lane_cnt = Lanes::splat(0u32);
    for base in (0..keys.len).step_by(WARP_SIZE) {
        let i = lane.map(|l| base + l);
        // Lanes with i >= len skip the last, partial chunk.
        let saved = w.push_active_mask(lanes_below(keys.len - base));
        let label = if keys.narrowed { "count_ge: s_cand[i]" } else { "count_ge: s_keys[i]" };
        let key = w.ld_shared(&i.map(|i| keys.base + i), label)?;
        let hit = if a.has(Mutant::CountGreaterThan) {
            key.zip(t, |key, t| key > t) // BUG: `>` instead of `>=`.
        } else {
            key.zip(t, |key, t| key >= t)
        };
        let new_cnt = lane_cnt.zip(&hit, |c, h| c.wrapping_add(u32::from(h)));
        w.assign(&mut lane_cnt, &new_cnt);
        w.pop_active(saved);
    }
    if a.has(Mutant::SharedCounterNoBarrier) {
        return shared_counter_sum(w, a, &lane_cnt);
    }
    warp_reduce(w, a, lane_cnt, add, "count_ge: warp_sum")
}

/// BUG (SharedCounterNoBarrier): the per-lane counts summed through a shared counter with a
/// plain read-modify-write and no `__syncwarp()` between the reset, the updates and the read.
fn shared_counter_sum(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    lane_cnt: &Lanes<u32>,
) -> Result<Lanes<u32>, SimError> {
    let s_cnt = Lanes::splat(w.warps_per_block() as usize * a.m + w.warp_idx() as usize);
    let lane0 = w.lane_id().map(|l| l == 0);
    let saved = w.push_active(&lane0, "count_ge: if (lane == 0)")?;
    w.st_shared(&s_cnt, &Lanes::splat(0), "count_ge: s_cnt = 0")?;
    w.pop_active(saved);
    let old = w.ld_shared(&s_cnt, "count_ge: s_cnt += lane_cnt (read)")?;
    w.st_shared(&s_cnt, &old.zip(lane_cnt, add), "count_ge: s_cnt += lane_cnt (write)")?;
    w.ld_shared(&s_cnt, "count_ge: cnt = s_cnt")
}

/// `update(t, cnt)` of Algorithm 1; returns the lanes' `cnt == k` (a hit).
fn update(b: &mut Bracket, k: u32, t: &Lanes<u32>, cnt: &Lanes<u32>) -> Lanes<bool> {
    b.iterations = b.iterations.map(|it| it.wrapping_add(1));
    let above = cnt.map(|c| c > k);
    // cnt < k or cnt == k: hi_key = t, count_at_hi = cnt; cnt > k: lo_key = t.
    b.hi_key = Lanes::select(&above, &b.hi_key, t);
    b.count_at_hi = Lanes::select(&above, &b.count_at_hi, cnt);
    b.lo_key = Lanes::select(&above, t, &b.lo_key);
    cnt.map(|c| c == k)
}

/// Stage 2 (`search_threshold`).
fn search_threshold(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    keys: &mut Keys,
    s_cand: usize,
    loaded: &Loaded,
    mut trace: Option<&mut RowTrace>,
) -> Result<(Bracket, SearchExit), SimError> {
    let lo_key = warp_reduce(w, a, loaded.lane_min, u32::min, "search: warp_min(lane_min)")?;
    let hi_key = warp_reduce(w, a, loaded.lane_max, u32::max, "search: warp_max(lane_max)")?;
    if let Some(t) = trace.as_deref_mut() {
        t.min_key = lo_key.lane(0);
        t.max_key = hi_key.lane(0);
    }
    let mut b = Bracket {
        lo_key,
        hi_key,
        count_at_hi: Lanes::splat(COUNT_NONE),
        iterations: Lanes::splat(0),
    };
    let exit = match a.bisect.max_iter {
        Some(n) => early_stopping(w, a, *keys, &mut b, n, trace)?,
        None => exact(w, a, keys, s_cand, &mut b, trace)?,
    };
    Ok((b, exit))
}

/// Exact search (Algorithm 1 with precision ε'): value phase, then key phase.
fn exact(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    keys: &mut Keys,
    s_cand: usize,
    b: &mut Bracket,
    mut trace: Option<&mut RowTrace>,
) -> Result<SearchExit, SimError> {
    if w.branch(&b.lo_key.eq_lanes(&b.hi_key), "search: lo_key == hi_key")? {
        return Ok(SearchExit::Converged);
    }
    if let Some(exit) = value_phase(w, a, keys, s_cand, b, trace.as_deref_mut())? {
        return Ok(exit);
    }
    // Key phase: only where the value phase cannot proceed.
    let k = a.k as u32;
    while w.branch(&b.hi_key.zip(&b.lo_key, |hi, lo| hi.wrapping_sub(lo) > 1), "key phase: loop")? {
        let t = b.lo_key.zip(&b.hi_key, |lo, hi| lo.wrapping_add(hi.wrapping_sub(lo) / 2));
        let before = *b;
        let cnt = count_ge(w, a, *keys, &t)?;
        let hit = update(b, k, &t, &cnt);
        record_step(trace.as_deref_mut(), Phase::Key, &before, None, &t, &cnt, &hit);
        if w.branch(&hit, "key phase: cnt == k")? {
            return Ok(SearchExit::Hit);
        }
    }
    Ok(SearchExit::Converged)
}

/// The value phase: the paper's bisection on ordered values. `Some(exit)` ends the search;
/// `None` hands the bracket to the key phase.
fn value_phase(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    keys: &mut Keys,
    s_cand: usize,
    b: &mut Bracket,
    mut trace: Option<&mut RowTrace>,
) -> Result<Option<SearchExit>, SimError> {
    let mut lo = b.lo_key.map(ordered_value_of_key);
    let mut hi = b.hi_key.map(ordered_value_of_key);
    let finite = lo.zip(&hi, |lo, hi| lo.is_finite() && hi.is_finite());
    if !w.branch(&finite, "value phase: isfinite(lo) && isfinite(hi)")? {
        return Ok(None);
    }
    let precision = a.bisect.precision;
    let eps = match a.bisect.epsilon_mode {
        EpsilonMode::RelativeToMax => hi.map(|hi| precision * hi.abs()),
        EpsilonMode::Absolute => Lanes::splat(precision),
    };
    let k = a.k as u32;
    while w.branch(&b.iterations.map(|it| it < VALUE_PHASE_LIMIT), "value phase: loop")? {
        let narrow = lo.zip(&hi, |lo, hi| hi - lo).zip(&eps, |width, eps| width <= eps);
        if w.branch(&narrow, "value phase: hi - lo <= eps")? {
            return Ok(Some(SearchExit::Precision));
        }
        let thres = lo.zip(&hi, midpoint);
        let t = thres.map(key_of_ordered);
        let inside = b.lo_key.zip(&t, |lo, t| lo < t).and(&t.zip(&b.hi_key, |t, hi| t < hi));
        if !w.branch(&inside, "value phase: lo_key < t < hi_key")? {
            break; // adjacent floats: value bisection stalls
        }
        let before = *b;
        let cnt = count_ge(w, a, *keys, &t)?;
        let hit = update(b, k, &t, &cnt);
        record_step(trace.as_deref_mut(), Phase::Value, &before, Some(&thres), &t, &cnt, &hit);
        if w.branch(&hit, "value phase: cnt == k")? {
            return Ok(Some(SearchExit::Hit));
        }
        let moved_hi = b.hi_key.eq_lanes(&t);
        hi = Lanes::select(&moved_hi, &thres, &hi);
        lo = Lanes::select(&moved_hi, &lo, &thres);
        if let (Some(cap), false) = (a.cand_cap(), keys.narrowed) {
            let fits = cnt.map(|c| c > k && c as usize <= cap);
            if w.branch(&fits, "value phase: k < cnt <= cap")? {
                let n = cnt.lane(0) as usize;
                *keys = narrow_row(w, a, *keys, s_cand, cap, &b.lo_key, n)?;
                if let Some(tr) = trace.as_deref_mut() {
                    tr.narrowed = Some((b.iterations.lane(0), cnt.lane(0)));
                }
            }
        }
    }
    Ok(None)
}

/// Narrows the row to its candidates (docs/kernel.md, "Narrowing"): the value phase's last
/// count found `k < n <= cap` keys `>= lo_key`, and every later threshold is above
/// `lo_key`, so those keys are all that later counts count, and all that the cut can select.
/// Chunks of 32 in index order: a ballot of the keys `>= lo_key`, each one's place by `popc`
/// with `%lanemask_lt`, its key to `s_cand[pos]` and its index to `s_cand[cap + pos]`;
/// `__syncwarp()` before anything reads them.
fn narrow_row(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: Keys,
    s_cand: usize,
    cap: usize,
    lo_key: &Lanes<u32>,
    n: usize,
) -> Result<Keys, SimError> {
    let lane = w.lane_id().map(|l| l as usize);
    let lanemask_lt = w.lanemask_lt();
    let mut written = Lanes::splat(0u32);
    for base in (0..row.len).step_by(WARP_SIZE) {
        let i = lane.map(|l| base + l);
        let valid = i.map(|i| i < row.len);
        let saved = w.push_active_mask(valid.mask());
        let loaded = w.ld_shared(&i.map(|i| row.base + i), "narrow_row: s_keys[i]")?;
        w.pop_active(saved);
        let key = Lanes::select(&valid, &loaded, &Lanes::splat(0));
        let cand = valid.and(&key.zip(lo_key, |key, lo| key >= lo));
        let mask = w.ballot_sync(FULL_MASK, &cand, "narrow_row: ballot(key >= lo_key)")?;
        let pos = written.zip(&mask.zip(&lanemask_lt, |m, lt| (m & lt).count_ones()), add);
        let saved = w.push_active(&cand, "narrow_row: if (key >= lo_key)")?;
        let at = pos.map(|p| s_cand + p as usize);
        w.st_shared(&at, &key, "narrow_row: s_cand[pos] = key")?;
        let at = pos.map(|p| s_cand + cap + p as usize);
        w.st_shared(&at, &i.map(|i| i as u32), "narrow_row: s_cand[cap + pos] = i")?;
        w.pop_active(saved);
        written = written.zip(&mask.popc(), add);
    }
    if !a.has(Mutant::MissingSyncwarpAfterNarrow) {
        w.syncwarp(FULL_MASK, "narrow_row: __syncwarp()")?;
    }
    Ok(Keys { base: s_cand, len: n, narrowed: true, cap })
}

/// Early stopping (Algorithm 2, `max_iter = n`): `n` two-way steps, no exit on `cnt == k`.
fn early_stopping(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    keys: Keys,
    b: &mut Bracket,
    n: u32,
    mut trace: Option<&mut RowTrace>,
) -> Result<SearchExit, SimError> {
    let mut lo = b.lo_key.map(ordered_value_of_key);
    let mut hi = b.hi_key.map(ordered_value_of_key);
    let finite = w.branch(
        &lo.zip(&hi, |lo, hi| lo.is_finite() && hi.is_finite()),
        "early stopping: isfinite(lo) && isfinite(hi)",
    )?;
    let k = a.k as u32;
    for _ in 0..n {
        let (thres, t) = if finite {
            let thres = lo.zip(&hi, midpoint);
            (thres, thres.map(key_of_ordered))
        } else {
            // The value is unused on such rows; NaN keeps the fixed-point test exact.
            let t = b.lo_key.zip(&b.hi_key, |lo, hi| lo.wrapping_add(hi.wrapping_sub(lo) / 2));
            (Lanes::splat(f32::NAN), t)
        };
        let before = (*b, lo, hi);
        let cnt = count_ge(w, a, keys, &t)?;
        let below = cnt.map(|c| c < k);
        b.hi_key = Lanes::select(&below, &t, &b.hi_key);
        hi = Lanes::select(&below, &thres, &hi);
        b.lo_key = Lanes::select(&below, &b.lo_key, &t);
        lo = Lanes::select(&below, &lo, &thres);
        let phase = if finite { Phase::Value } else { Phase::Key };
        let no_hit = Lanes::splat(false);
        record_step(
            trace.as_deref_mut(),
            phase,
            &before.0,
            finite.then_some(&thres),
            &t,
            &cnt,
            &no_hit,
        );
        let same = before
            .0
            .lo_key
            .eq_lanes(&b.lo_key)
            .and(&before.0.hi_key.eq_lanes(&b.hi_key))
            .and(&before.1.zip(&lo, |x, y| x.to_bits() == y.to_bits()))
            .and(&before.2.zip(&hi, |x, y| x.to_bits() == y.to_bits()));
        if w.branch(&same, "early stopping: fixed point")? {
            break; // every remaining step would repeat this one
        }
    }
    b.iterations = Lanes::splat(n);
    Ok(SearchExit::MaxIter)
}

// ----- stage 3 ------------------------------------------------------------------------------

/// Stage 3 (`select_topk`): the ballot + popc selection, in index order.
#[allow(clippy::too_many_arguments)]
fn select_topk(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    x: &[f32],
    out: &mut KernelOut,
    row: usize,
    keys: Keys,
    b: &Bracket,
    exit: SearchExit,
    mut trace: Option<&mut RowTrace>,
) -> Result<(), SimError> {
    let k = a.k as u32;
    let SelectionBounds { strong_above, band_lo, strong_count } =
        selection_bounds(w, a, keys, b, exit)?;
    if let Some(t) = trace.as_deref_mut() {
        t.exit = Some(exit);
        t.iterations = b.iterations.lane(0);
        t.strong_above = strong_above.lane(0);
        t.band_lo = band_lo.lane(0);
        t.strong_count = strong_count.lane(0);
    }
    let lane = w.lane_id().map(|l| l as usize);
    let lanemask_lt = w.lanemask_lt();
    let mut band_left = strong_count.map(|s| k.wrapping_sub(s));
    let mut written = Lanes::splat(0u32);
    // BUG (SelectPastM): the chunk loop and the validity test use M rounded up to 32.
    let len = keys.len;
    let end = if a.has(Mutant::SelectPastM) { len.next_multiple_of(WARP_SIZE) } else { len };
    for base in (0..end).step_by(WARP_SIZE) {
        let j = lane.map(|l| base + l);
        let valid = j.map(|j| j < end);
        let saved = w.push_active_mask(valid.mask());
        let label = if keys.narrowed { "select: s_cand[j]" } else { "select: s_keys[i]" };
        let loaded = w.ld_shared(&j.map(|j| keys.base + j), label)?;
        // A narrowed row's candidates carry their element indices.
        let i = if keys.narrowed {
            let at = j.map(|j| keys.base + keys.cap + j);
            w.ld_shared(&at, "select: i = s_cand[cap + j]")?.map(|i| i as usize)
        } else {
            j
        };
        w.pop_active(saved);
        let key = Lanes::select(&valid, &loaded, &Lanes::splat(0));
        if a.has(Mutant::EarlyExitBeforeBallot) {
            // BUG: lanes past the row leave before the ballots of the last chunk.
            w.exit_where(&valid.not(), "select: if (i >= M) return")?;
        }
        let strong = valid.and(&key.zip(&strong_above, |key, s| key > s));
        let band = valid.and(&strong.not()).and(&key.zip(&band_lo, |key, lo| key >= lo));
        let ballot_mask = if a.has(Mutant::BallotPartialMask) {
            // BUG: the ballot names only the lanes holding an element of the row.
            lanes_below(len - base.min(len))
        } else {
            FULL_MASK
        };
        let strong_mask = w.ballot_sync(ballot_mask, &strong, "select: ballot(strong)")?;
        let band_mask = w.ballot_sync(ballot_mask, &band, "select: ballot(band)")?;
        let band_rank = band_mask.zip(&lanemask_lt, |m, lt| (m & lt).count_ones());
        let take_band = if a.has(Mutant::CutOffByOne) {
            band.and(&band_rank.zip(&band_left, |r, left| r <= left)) // BUG: `<=`
        } else {
            band.and(&band_rank.zip(&band_left, |r, left| r < left))
        };
        let band_before = band_left;
        band_left = band_left.zip(&band_mask.popc(), |left, n| left.wrapping_sub(n.min(left)));
        let selected = strong.or(&take_band);
        let sel_mask = w.ballot_sync(ballot_mask, &selected, "select: ballot(selected)")?;
        let pos = position(w, a, &written, &sel_mask, &lanemask_lt, &selected)?;
        let keep = selected.and(&pos.map(|p| p < k));
        let saved = w.push_active(&keep, "select: if (selected && pos < k)")?;
        // BUG (OutputStrideM): the input's row stride used for the output.
        let stride = if a.has(Mutant::OutputStrideM) { a.m } else { a.k };
        let slot = pos.map(|p| row * stride + p as usize);
        let xv = w.ld_global(x, &i.map(|i| row * a.m + i), "select: x[row*M + i]")?;
        w.st_global(&mut out.out_idx, &slot, &i.map(|i| i as u32), "select: out_idx[row*k + pos]")?;
        w.st_global(&mut out.out_val, &slot, &xv, "select: out_val[row*k + pos]")?;
        w.pop_active(saved);
        if let Some(t) = trace.as_deref_mut() {
            t.chunks.push(TraceChunk {
                base,
                valid: valid.mask(),
                strong_mask: strong_mask.lane(0),
                band_mask: band_mask.lane(0),
                sel_mask: sel_mask.lane(0),
                band_left_before: band_before.lane(0),
                written_before: written.lane(0),
            });
        }
        written = written.zip(&sel_mask.popc(), add);
        if w.branch(&written.map(|wr| wr >= k), "select: written >= k")? {
            break;
        }
    }
    Ok(())
}

/// The first `n` lanes (all of them when `n >= 32`): the lanes of a chunk with `i < M` when
/// `n = M - base`.
fn lanes_below(n: usize) -> u32 {
    if n >= WARP_SIZE { FULL_MASK } else { (1u32 << n) - 1 }
}

/// `pos = written + popc(sel_mask & lanemask_lt)`: the lane's output slot.
fn position(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    written: &Lanes<u32>,
    sel_mask: &Lanes<u32>,
    lanemask_lt: &Lanes<u32>,
    selected: &Lanes<bool>,
) -> Result<Lanes<u32>, SimError> {
    if a.has(Mutant::PrefixMaskShift32) {
        // BUG: an inclusive mask `(1 << (lane + 1)) - 1` — a shift by 32 in lane 31.
        let next = w.lane_id().map(|l| l + 1);
        let lanemask_le =
            w.shl(&Lanes::splat(1), &next, "select: 1 << (lane + 1)")?.map(|m| m.wrapping_sub(1));
        let upto = sel_mask.zip(&lanemask_le, |m, le| (m & le).count_ones());
        let own = selected.map(u32::from);
        return Ok(written.zip(&upto, add).zip(&own, |p, o| p.wrapping_sub(o)));
    }
    Ok(written.zip(&sel_mask.zip(lanemask_lt, |m, lt| (m & lt).count_ones()), add))
}

/// `(strong_above, band_lo, strong_count)` for the way the search ended (docs/kernel.md's
/// table). Counts `count_ge(hi_key)` once when `hi_key` was never tested.
fn selection_bounds(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    keys: Keys,
    b: &Bracket,
    exit: SearchExit,
) -> Result<SelectionBounds, SimError> {
    let k = a.k as u32;
    let hi_minus_1 = b.hi_key.map(|hi| hi.wrapping_sub(1));
    match exit {
        SearchExit::MaxIter => Ok(bounds(Lanes::splat(NO_STRONG), b.lo_key, Lanes::splat(0))),
        // Exactly k keys are >= hi_key: all strong, the band is empty.
        SearchExit::Hit => Ok(bounds(hi_minus_1, b.hi_key, Lanes::splat(k))),
        SearchExit::Converged | SearchExit::Precision => {
            let untested = b.count_at_hi.map(|c| c == COUNT_NONE);
            let at_hi = if w.branch(&untested, "select: count_at_hi == NONE")? {
                count_ge(w, a, keys, &b.hi_key)? // one extra counting pass, not an iteration
            } else {
                b.count_at_hi
            };
            if w.branch(&at_hi.map(|c| c < k), "select: at_hi < k")? {
                Ok(bounds(hi_minus_1, b.lo_key, at_hi))
            } else {
                // Ties at the maximum fill k: the first k of them by index.
                Ok(bounds(Lanes::splat(NO_STRONG), b.hi_key, Lanes::splat(0)))
            }
        }
    }
}

fn bounds(
    strong_above: Lanes<u32>,
    band_lo: Lanes<u32>,
    strong_count: Lanes<u32>,
) -> SelectionBounds {
    SelectionBounds { strong_above, band_lo, strong_count }
}

/// Appends one search step (lane 0's view: the bracket is warp-uniform) to the trace.
fn record_step(
    trace: Option<&mut RowTrace>,
    phase: Phase,
    before: &Bracket,
    thres: Option<&Lanes<f32>>,
    t: &Lanes<u32>,
    cnt: &Lanes<u32>,
    hit: &Lanes<bool>,
) {
    let Some(tr) = trace else { return };
    let (t, cnt) = (t.lane(0), cnt.lane(0));
    let moved = if hit.lane(0) {
        Moved::Hit
    } else if cnt < tr.k as u32 {
        Moved::Hi
    } else {
        Moved::Lo
    };
    tr.steps.push(TraceStep {
        iteration: tr.steps.len() as u32 + 1,
        phase,
        lo_key: before.lo_key.lane(0),
        hi_key: before.hi_key.lane(0),
        thres: thres.map(|v| v.lane(0)),
        t,
        cnt,
        moved,
    });
}
