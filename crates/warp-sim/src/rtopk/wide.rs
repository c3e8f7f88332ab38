//! Wide rows (docs/kernel.md, "64-bit rows"): the kernels `rtopk_wide_rows_<EPL>_<f64|i64>`
//! (`kernels/wide_rows.cu`), rows of 64-bit elements on their own 64-bit keys, one warp per
//! row, `WIDE_WARPS` rows per block, EPL keys per lane (rtopk-plan's `wide`, `WIDE_WIDTHS`: the
//! plan's `keys_per_lane`). Its stages, under the CUDA names: `load_wide` (lane `l`'s slot `j`
//! holds the key of element `l + 32 j`, `j < EPL`; the rest of a longer row is re-keyed from
//! the input on each pass), `search_wide`
//! (`wide_value_phase` on f64 values, `wide_key_phase`, or `wide_early_stopping`),
//! `select_wide` (`cut_wide`, `select_chunk_wide`: the ballot selection in index order) and
//! `sort_wide` (the kernel sorts its own results where the program asks for sorted output).
//! They are topk-ref's `bisect` and `select_in_index_order` on the keys of topk-ref's
//! `Element` impls of `f64` and `i64`: the same tests, counts and answer, value bits kept.
//!
//! The ragged twins `rtopk_wide_rows_ragged_<EPL>` (the plan's unit `is_ragged`; docs/contract.md
//! §5) read each row's own width and k (`row_args`), pad the outputs past the row's k
//! (`pad_results`), and where the launch gives hints in exact mode start the search at the
//! row's hint (`search_wide_hinted`: `wide_hint_key`, `wide_hint_test`, `wide_window_tests`,
//! then the value and key phases from the bracket they leave — topk-ref's
//! `search_keys_hint_key`). The threshold step of 64-bit rows reads their values back
//! (`threshold.rs`, through `wide_key`, `warp_min64` and `wide_threshold_value`).

use std::cmp::Ordering;

use rtopk_plan::WIDE_WARPS;
use topk_ref::bisect::{HINT_WINDOW_SHIFTS, VALUE_PHASE_LIMIT};
use topk_ref::{Element, Mode};

use crate::engine::error::SimError;
use crate::engine::global::Source;
use crate::engine::lanes::{FULL_MASK, Lanes};
use crate::engine::warp::{BufId, Warp};
use crate::rtopk::args::{KernelArgs, SearchExit};
use crate::rtopk::coverage::Branch;
use crate::rtopk::mutant::Mutant;
use crate::rtopk::narrow::{pad_results, write_iterations};
use crate::rtopk::order::ElemType;
use crate::rtopk::params::{Params, place_row};
use crate::rtopk::search::{HintSide, HintStep};
use crate::rtopk::select::lowest_bits; // wide_rows.cu's own copy: the lowest n set bits

/// The sign bit of a 64-bit key (`SIGN64`).
const SIGN64: u64 = 1 << 63;

// ---- The order on 64-bit elements (topk-ref's order.rs) --------------------------------------

/// `key_of_bits64`: the key of a number's bits — flip every bit of a negative number, set the
/// sign bit of a non-negative one.
fn key_of_bits64(bits: u64) -> u64 {
    bits ^ (((bits as i64 >> 63) as u64) | SIGN64)
}

/// `bits_of_key64`: [`key_of_bits64`] undone — the sign bit cleared where it is set, every bit
/// flipped where it is not.
fn bits_of_key64(key: u64) -> u64 {
    key ^ (!((key as i64 >> 63) as u64) | SIGN64)
}

/// `number_key64`: [`key_of_bits64`] of `v + 0.0`, which is `v` but for `-0.0 + 0.0 = +0.0`
/// (IEEE 754, round to nearest): -0.0 joins +0.0.
fn number_key64(v: f64) -> u64 {
    key_of_bits64((v + 0.0).to_bits())
}

/// `wide_key`: an element's own key from its bits, in the mode of `sign`. f64: every NaN at
/// the top (largest) or at 0 (smallest, the negated value's key); i64: the value with its
/// sign bit flipped, complemented in smallest mode.
pub(crate) fn wide_key(elem: ElemType, bits: u64, sign: f32) -> u64 {
    if elem == ElemType::F64 {
        // the kernel's `v * sign + 0.0` (one fused rounding; both steps are exact here)
        let v = f64::from_bits(bits);
        let key = key_of_bits64((v * f64::from(sign) + 0.0).to_bits());
        let nan_key = if sign > 0.0 { u64::MAX } else { 0 };
        return if v.is_nan() { nan_key } else { key };
    }
    let key = bits ^ SIGN64;
    if sign > 0.0 { key } else { !key }
}

/// `ordered_of_key64`: the ordered value a key stands for (NaN for the NaN keys).
fn ordered_of_key64(key: u64) -> f64 {
    f64::from_bits(bits_of_key64(key))
}

/// `wide_key_keeps_bits`: whether a key determines its element's bits — every i64 key; every
/// f64 key but +-0.0's (one key for both) and the NaN keys (payloads).
/// In 32-bit words, as the kernel tests it: neither SIGN64 nor 0 (the low word and the high
/// word's low 31 bits all zero), nor `u64::MAX`.
fn wide_key_keeps_bits(elem: ElemType, key: u64) -> bool {
    let (hi, lo) = ((key >> 32) as u32, key as u32);
    elem != ElemType::F64 || ((lo | (hi & 0x7fff_ffff)) != 0 && (lo & hi) != u32::MAX)
}

/// `wide_value_of_key`: the bits of the element whose key is `key` in the mode of `sign`,
/// where the key keeps them — [`wide_key`] undone.
fn wide_value_of_key(elem: ElemType, key: u64, sign: f32) -> u64 {
    if elem == ElemType::F64 {
        // the ordered value's bits, negated back by the sign bit in smallest mode
        return bits_of_key64(key) ^ if sign > 0.0 { 0 } else { SIGN64 };
    }
    (if sign > 0.0 { key } else { !key }) ^ SIGN64
}

/// `midpoint64`: `(lo + hi) * 0.5`, or `lo * 0.5 + hi * 0.5` where the sum overflows.
fn midpoint64(lo: f64, hi: f64) -> f64 {
    let m = (lo + hi) * 0.5;
    if m.is_finite() { m } else { lo * 0.5 + hi * 0.5 }
}

/// An element's key by topk-ref (`Element::key` of `f64` or `i64`): the contract checks'
/// reference, apart from [`wide_key`].
fn reference_key64(elem: ElemType, bits: u64, mode: Mode) -> u64 {
    match elem {
        ElemType::F64 => f64::from_bits(bits).key(mode),
        _ => (bits as i64).key(mode),
    }
}

/// `wide_threshold_value`: a 64-bit value (its bits) as f32 (its bits), as topk-ref's
/// `Element::to_f32` (Rust's `as`): the nearest f32, ties to even (a finite f64 beyond f32's
/// range becomes ±inf; `__double2float_rn`, `__ll2float_rn`); an f64 NaN keeps its sign and
/// the top of its payload, quieted, as x86's conversion does.
pub(crate) fn wide_threshold_value(elem: ElemType, bits: u64) -> u32 {
    if elem != ElemType::F64 {
        return (bits as i64 as f32).to_bits();
    }
    let v = f64::from_bits(bits);
    if v.is_nan() {
        let (high, payload) = ((bits >> 32) as u32, (bits >> 29) as u32);
        return high & 0x8000_0000 | 0x7fc0_0000 | payload & 0x007f_ffff;
    }
    (v as f32).to_bits()
}

// ---- Warp reductions on 64-bit keys ----------------------------------------------------------

/// A 64-bit extreme over the warp (the greatest where `greatest`, else the least) in two 32-bit
/// reductions (`redux.sync` takes 32-bit values): the high words' extreme, then the low words'
/// extreme among the lanes whose high word is it.
fn warp_fold64(
    w: &mut Warp<'_>,
    v: &Lanes<u64>,
    greatest: bool,
    label: &'static str,
) -> Result<Lanes<u64>, SimError> {
    let reduce = |w: &mut Warp<'_>, v: &Lanes<u32>| {
        if greatest {
            w.reduce_max_sync(FULL_MASK, v, label)
        } else {
            w.reduce_min_sync(FULL_MASK, v, label)
        }
    };
    let neutral = if greatest { 0 } else { u32::MAX };
    let top = reduce(w, &v.map(|v| (v >> 32) as u32))?;
    let low = v.zip(&top, |v, top| if (v >> 32) as u32 == top { v as u32 } else { neutral });
    let low = reduce(w, &low)?;
    Ok(top.zip(&low, |top, low| u64::from(top) << 32 | u64::from(low)))
}

/// `warp_min64`.
pub(crate) fn warp_min64(w: &mut Warp<'_>, v: &Lanes<u64>) -> Result<Lanes<u64>, SimError> {
    warp_fold64(w, v, false, "warp_min64: reduce_min(v's words)")
}

/// `warp_max64`.
fn warp_max64(w: &mut Warp<'_>, v: &Lanes<u64>) -> Result<Lanes<u64>, SimError> {
    warp_fold64(w, v, true, "warp_max64: reduce_max(v's words)")
}

// ---- The row ---------------------------------------------------------------------------------

/// `WideRow<EPL>`: lane `l`'s slot `j < EPL` holds the key of element `l + 32 j` (0 past `m`);
/// `in` (the row's first element in `x`), `m`, `sign`, and the element type (`ELEM_KIND`).
struct WideRow<'x> {
    keys: Vec<Lanes<u64>>,
    x: &'x dyn Source,
    input: Lanes<u64>,
    m: u32,
    sign: f32,
    elem: ElemType,
}

impl WideRow<'_> {
    /// `wide_key(row.in[i], row.sign)` in the active lanes (a 64-bit load).
    async fn key_at(
        &self,
        w: &mut Warp<'_>,
        i: &Lanes<u32>,
        label: &'static str,
    ) -> Result<Lanes<u64>, SimError> {
        let v = self.load(w, i, label).await?;
        Ok(v.map(|b| wide_key(self.elem, b, self.sign)))
    }

    /// `row.in[i]`: the element's bits, in the active lanes.
    async fn load(
        &self,
        w: &mut Warp<'_>,
        i: &Lanes<u32>,
        label: &'static str,
    ) -> Result<Lanes<u64>, SimError> {
        let at = w.add_u64(&self.input, &i.map(u64::from), "row.in + i")?;
        w.ld_input64(self.x, &at, label).await
    }

    /// The re-keyed part's passes: the first index of each chunk of 32 past the registers
    /// (`32 * EPL`).
    fn rest(&self) -> std::iter::StepBy<std::ops::Range<u32>> {
        let held = u32::try_from(32 * self.keys.len()).unwrap_or(u32::MAX);
        (held..self.m).step_by(32)
    }
}

/// `count_wide`: how many of the row's keys are `>= t`, in every lane (`__reduce_add_sync`).
/// The slots past the row's end hold key 0, which no test counts: every `t` tested is above
/// the bracket's low key (`t >= 1`). `t = 0` counts them too: early stopping's fixed point
/// asks only whether the count reaches `k <= m`, and `cut_wide` at an all-zero row then takes
/// its general cut (the first k keys `>= 0`: the same elements) where a count of exactly k
/// would have taken them all.
async fn count_wide(
    w: &mut Warp<'_>,
    row: &WideRow<'_>,
    t: u64,
    lane: &Lanes<u32>,
) -> Result<u32, SimError> {
    let mut c = Lanes::splat(0u32);
    for slot in &row.keys {
        c = c.zip(slot, |c, key| c.wrapping_add(u32::from(key >= t)));
    }
    for base in row.rest() {
        let i = lane.map(|l| base + l);
        let saved = w.push_active(&i.map(|i| i < row.m), "count_wide: i < row.m")?;
        let key = row.key_at(w, &i, "count_wide: row.in[i]").await?;
        let next = c.zip(&key, |c, key| c.wrapping_add(u32::from(key >= t)));
        w.assign(&mut c, &next);
        w.pop_active(saved);
    }
    let total = w.reduce_add_sync(FULL_MASK, &c, "count_wide: __reduce_add_sync(c)")?;
    w.uniform(&total, "count_wide: the count")
}

/// Stage 1, `load_wide`: the slots' keys, and the row's least and greatest key (uniform).
/// Every slot's element is loaded before any is keyed (the kernel issues the loads back to
/// back instead of waiting out each one's latency in turn; it keys every slot and masks the
/// keys past the row with 0, where this keys the valid lanes and selects: the same keys).
async fn load_wide(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &mut WideRow<'_>,
    lane: &Lanes<u32>,
) -> Result<(u64, u64), SimError> {
    let mut values = Vec::with_capacity(row.keys.len());
    for j in 0..row.keys.len() {
        let i = lane.map(|l| l + 32 * j as u32);
        let valid = i.map(|i| i < row.m);
        let saved = w.push_active(&valid, "load_wide: i < row.m")?;
        let v = row.load(w, &i, "load_wide: v[j] = row.in[i]").await?;
        w.pop_active(saved);
        values.push((valid, v));
    }
    let (mut lo, mut hi) = (Lanes::splat(u64::MAX), Lanes::splat(0u64));
    for (j, (valid, v)) in values.iter().enumerate() {
        let saved = w.push_active(valid, "load_wide: valid")?;
        let key = checked_key(w, a, row, v)?;
        widen(w, (&mut lo, &mut hi), &key);
        w.pop_active(saved);
        row.keys[j] = Lanes::select(valid, &key, &Lanes::splat(0));
    }
    for base in row.rest() {
        let i = lane.map(|l| base + l);
        let saved = w.push_active(&i.map(|i| i < row.m), "load_wide: i < row.m")?;
        let key = load_checked_key(w, a, row, &i, "load_wide: row.in[i] (past the slots)").await?;
        widen(w, (&mut lo, &mut hi), &key);
        w.pop_active(saved);
    }
    let lo = warp_min64(w, &lo)?;
    let hi = warp_max64(w, &hi)?;
    Ok((w.uniform(&lo, "load_wide: lo_key")?, w.uniform(&hi, "load_wide: hi_key")?))
}

/// `lo = min(lo, key); hi = max(hi, key)` in the active lanes.
fn widen(w: &Warp<'_>, (lo, hi): (&mut Lanes<u64>, &mut Lanes<u64>), key: &Lanes<u64>) {
    let (least, greatest) = (lo.zip(key, u64::min), hi.zip(key, u64::max));
    w.assign(lo, &least);
    w.assign(hi, &greatest);
}

/// [`WideRow::key_at`] with the simulator's contract check: each key is docs/contract.md §1's,
/// topk-ref's `Element::key` of the element (an [`crate::engine::DiagKind::AssertFailed`]
/// where not).
async fn load_checked_key(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &WideRow<'_>,
    i: &Lanes<u32>,
    label: &'static str,
) -> Result<Lanes<u64>, SimError> {
    let v = row.load(w, i, label).await?;
    checked_key(w, a, row, &v)
}

/// `wide_key(v, row.sign)` of loaded elements, with the simulator's contract check (in the
/// active lanes).
fn checked_key(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &WideRow<'_>,
    v: &Lanes<u64>,
) -> Result<Lanes<u64>, SimError> {
    let key = v.map(|b| wide_key(row.elem, b, row.sign));
    if w.checks() {
        let ok = v.zip(&key, |b, k| reference_key64(row.elem, b, a.mode) == k);
        w.check(&ok, "load_wide: wide_key is docs/contract.md §1's key")?;
    }
    Ok(key)
}

// ---- Stage 2, search_wide: topk-ref's bisect on the row's 64-bit keys ------------------------

/// `WideSearch`: the bracket of keys, `cnt(hi)` where a test set it, `cnt(lo)` (the row's
/// length until a test raises `lo`), the tests made and how the search ended; and whether it
/// bisected keys (the simulator's coverage, no kernel state).
#[derive(Clone, Copy, Debug)]
struct WideSearch {
    lo_key: u64,
    hi_key: u64,
    count_at_hi: u32,
    has_count_at_hi: bool,
    count_at_lo: u32,
    iterations: u32,
    exit: SearchExit,
    key_phase: bool,
}

impl WideSearch {
    /// `{lo_key, hi_key, 0u, 0, row.m, 0u, EXIT_CONVERGED}`: the bracket of the row's least and
    /// greatest key, `cnt(lo)` the row's length, no test yet.
    fn new(row: &WideRow<'_>, (lo_key, hi_key): (u64, u64)) -> Self {
        Self {
            lo_key,
            hi_key,
            count_at_hi: 0,
            has_count_at_hi: false,
            count_at_lo: row.m,
            iterations: 0,
            exit: SearchExit::Converged,
            key_phase: false,
        }
    }
}

/// `wide_update`: Algorithm 1's three-way update (topk-ref's `update_exact`); `Equal` on a hit,
/// `Less` where `hi` was lowered, `Greater` where `lo` was raised.
fn wide_update(s: &mut WideSearch, t: u64, cnt: u32, k: u32) -> Ordering {
    s.iterations = s.iterations.wrapping_add(1);
    if cnt > k {
        (s.lo_key, s.count_at_lo) = (t, cnt);
        return Ordering::Greater;
    }
    (s.hi_key, s.count_at_hi, s.has_count_at_hi) = (t, cnt, true);
    cnt.cmp(&k)
}

/// `wide_recall_met`: topk-ref's recall rule — the bracket's selection misses at most
/// `min(k - cnt(hi), cnt(lo) - k)` of the top k (an unknown `cnt(hi)` counts as 0); a
/// negative `slack`: no recall target.
fn wide_recall_met(s: &WideSearch, k: u32, slack: i64) -> bool {
    if slack < 0 {
        return false;
    }
    let at_hi = if s.has_count_at_hi { s.count_at_hi } else { 0 };
    let above = k.saturating_sub(at_hi);
    let below = s.count_at_lo.saturating_sub(k);
    i64::from(above.min(below)) <= slack
}

/// `wide_recall_slack`: `k - ceil(r k)` with `r k` in f32 (topk-ref's `Bisect::recall_slack`),
/// or -1 without a target or where it allows no miss.
fn wide_recall_slack(a: &KernelArgs, k: u32) -> i64 {
    // `p.recall > 0`: a target (0 without one)
    let Some(r) = a.bisect.recall.filter(|&r| r > 0.0) else { return -1 };
    let need = (r * k as f32).ceil() as u32;
    if need >= k { -1 } else { i64::from(k - need) }
}

/// `wide_value_phase` (topk-ref's `value_phase` on f64 ordered values): `true` when the search
/// is over, `false` when the key phase takes over — a bound not finite, a stall (no f64 strictly
/// between the bounds' keys), `VALUE_PHASE_LIMIT` tests, or an i64 row (no value phase).
async fn wide_value_phase(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &WideRow<'_>,
    s: &mut WideSearch,
    lane: &Lanes<u32>,
    slack: i64,
) -> Result<bool, SimError> {
    if row.elem != ElemType::F64 {
        return Ok(false);
    }
    let (mut lo, mut hi) = (ordered_of_key64(s.lo_key), ordered_of_key64(s.hi_key));
    if !(lo.is_finite() && hi.is_finite()) {
        return Ok(false);
    }
    let (mut lo_wide, mut hi_wide) = (number_key64(lo), number_key64(hi));
    let eps = f64::from(a.bisect.precision) * hi.abs();
    let k = a.k as u32;
    while s.iterations < VALUE_PHASE_LIMIT {
        if wide_recall_met(s, k, slack) {
            s.exit = SearchExit::Recall;
            return Ok(true);
        }
        if hi - lo <= eps {
            s.exit = SearchExit::Precision;
            return Ok(true);
        }
        let thres = midpoint64(lo, hi);
        let t = number_key64(thres); // finite: its own key, the key test's threshold
        if !(lo_wide < t && t < hi_wide) {
            return Ok(false);
        }
        let cnt = count_wide(w, row, t, lane).await?;
        match wide_update(s, t, cnt, k) {
            Ordering::Equal => {
                s.exit = SearchExit::Hit;
                return Ok(true);
            }
            Ordering::Less => (hi, hi_wide) = (thres, t),
            Ordering::Greater => (lo, lo_wide) = (thres, t),
        }
    }
    Ok(false)
}

/// `wide_key_phase`: halving the key bracket until its ends are adjacent.
async fn wide_key_phase(
    w: &mut Warp<'_>,
    row: &WideRow<'_>,
    s: &mut WideSearch,
    k: u32,
    lane: &Lanes<u32>,
    slack: i64,
) -> Result<(), SimError> {
    while s.hi_key.wrapping_sub(s.lo_key) > 1 {
        if wide_recall_met(s, k, slack) {
            s.exit = SearchExit::Recall;
            return Ok(());
        }
        s.key_phase = true;
        let t = s.lo_key.wrapping_add(s.hi_key.wrapping_sub(s.lo_key) / 2);
        let cnt = count_wide(w, row, t, lane).await?;
        if wide_update(s, t, cnt, k) == Ordering::Equal {
            s.exit = SearchExit::Hit;
            return Ok(());
        }
    }
    s.exit = SearchExit::Converged;
    Ok(())
}

/// `wide_early_stopping` (Algorithm 2 as written, topk-ref's `search_early_stopping`):
/// `max_iter` steps of `cnt < k ? hi = thres : lo = thres`, on f64 values where both ends are
/// finite, else on keys, stopping at a fixed point (every remaining step would repeat it).
async fn wide_early_stopping(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &WideRow<'_>,
    s: &mut WideSearch,
    lane: &Lanes<u32>,
) -> Result<(), SimError> {
    let (mut lo, mut hi, mut finite) = (0.0f64, 0.0f64, false);
    if row.elem == ElemType::F64 {
        (lo, hi) = (ordered_of_key64(s.lo_key), ordered_of_key64(s.hi_key));
        finite = lo.is_finite() && hi.is_finite();
    }
    let max_iter = a.bisect.max_iter.unwrap_or(0);
    s.key_phase = !finite && max_iter > 0;
    for _ in 0..max_iter {
        let mut thres = 0.0f64; // key steps move the keys alone
        let t = if finite {
            thres = midpoint64(lo, hi);
            number_key64(thres)
        } else {
            s.lo_key.wrapping_add(s.hi_key.wrapping_sub(s.lo_key) / 2)
        };
        let before = (s.lo_key, s.hi_key, lo.to_bits(), hi.to_bits());
        if count_wide(w, row, t, lane).await? < a.k as u32 {
            s.hi_key = t;
            hi = if finite { thres } else { hi };
        } else {
            s.lo_key = t;
            lo = if finite { thres } else { lo };
        }
        if before == (s.lo_key, s.hi_key, lo.to_bits(), hi.to_bits()) {
            break; // a fixed point: every remaining step repeats this one
        }
    }
    (s.iterations, s.exit) = (max_iter, SearchExit::MaxIter);
    Ok(())
}

/// Stage 2, `search_wide`: early stopping, or exact — the value phase, then the key phase.
async fn search_wide(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &WideRow<'_>,
    (lo_key, hi_key): (u64, u64),
    lane: &Lanes<u32>,
) -> Result<WideSearch, SimError> {
    let mut s = WideSearch::new(row, (lo_key, hi_key));
    if a.bisect.max_iter.is_some() {
        wide_early_stopping(w, a, row, &mut s, lane).await?;
        return Ok(s);
    }
    if lo_key == hi_key {
        return Ok(s);
    }
    let slack = wide_recall_slack(a, a.k as u32);
    if wide_value_phase(w, a, row, &mut s, lane, slack).await? {
        return Ok(s);
    }
    wide_key_phase(w, row, &mut s, a.k as u32, lane, slack).await?;
    Ok(s)
}

// ---- Threshold hints (docs/contract.md §5; topk-ref's bisect, "Hints") -----------------------
// The ragged units only: a row with a hint, in exact mode without a precision or recall target,
// starts with `wide_hint_test` and `wide_window_tests`, then goes on with the value phase and
// the key phase from the bracket they leave (topk-ref's `search_keys_hint_key`).

/// `wide_hint_key`: the key a hint is tested at (topk-ref's `Element::hint_key`), or none: on
/// an f64 row the key of the hint's ordered value (`hint * sign`, exact), none for NaN; on an
/// i64 row the key of the least integer `>= hint` (largest mode) or the greatest `<= hint`
/// (smallest), saturated at the type's far end, none beyond its near end.
fn wide_hint_key(elem: ElemType, hint: f32, sign: f32) -> Option<u64> {
    let has = !hint.is_nan();
    if elem == ElemType::F64 {
        return has.then(|| number_key64(f64::from(hint * sign)));
    }
    const TWO63: f64 = 9_223_372_036_854_775_808.0; // 2^63: i64 holds [-2^63, 2^63)
    if sign > 0.0 {
        let c = f64::from(hint).ceil();
        let v = if c < -TWO63 { i64::MIN } else { c as i64 };
        return (has && c < TWO63).then(|| wide_key(elem, v as u64, sign));
    }
    let f = f64::from(hint).floor();
    let v = if f >= TWO63 { i64::MAX } else { f as i64 };
    (has && f >= -TWO63).then(|| wide_key(elem, v as u64, sign))
}

/// The reference of [`wide_hint_key`]: topk-ref's `Element::hint_key` of `f64` or `i64`.
fn reference_hint_key(elem: ElemType, hint: f32, mode: Mode) -> Option<u64> {
    match elem {
        ElemType::F64 => <f64 as Element>::hint_key(hint, mode),
        _ => <i64 as Element>::hint_key(hint, mode),
    }
}

/// `wide_hint_test`: one pass at `t` counting the keys `> t` and `>= t`, so that a hint at the
/// row's threshold ends the search; skipped without a hint key, for a bracket of adjacent
/// keys, or for `t` outside `(lo_key, hi_key]`.
async fn wide_hint_test(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &WideRow<'_>,
    s: &mut WideSearch,
    (hint, k): (f32, u32),
    lane: &Lanes<u32>,
) -> Result<HintStep, SimError> {
    let t = wide_hint_key(row.elem, hint, row.sign);
    if w.checks() {
        let same = t == reference_hint_key(row.elem, hint, a.mode);
        w.check_that(same, "wide_hint_test: wide_hint_key is topk-ref's hint_key")?;
    }
    let Some(t) = t else { return Ok(HintStep::Skipped) };
    if s.hi_key.wrapping_sub(s.lo_key) <= 1 || t <= s.lo_key || t > s.hi_key {
        return Ok(HintStep::Skipped);
    }
    let at_least = count_wide(w, row, t, lane).await?;
    let above = if t == u64::MAX { 0 } else { count_wide(w, row, t + 1, lane).await? };
    s.iterations = s.iterations.wrapping_add(1);
    if at_least < k {
        (s.hi_key, s.count_at_hi, s.has_count_at_hi) = (t, at_least, true);
        return Ok(HintStep::Side(HintSide::Below));
    }
    if above > k {
        s.lo_key = t + 1; // a key above t: no wrap
        return Ok(HintStep::Side(HintSide::Above));
    }
    if above == k {
        (s.hi_key, s.count_at_hi, s.has_count_at_hi) = (t + 1, above, true);
        s.exit = SearchExit::Hit;
        return Ok(HintStep::Ended);
    }
    if at_least == k {
        // above < k <= at_least: the k-th key is t itself
        (s.hi_key, s.count_at_hi, s.has_count_at_hi) = (t, at_least, true);
        s.exit = SearchExit::Hit;
        return Ok(HintStep::Ended);
    }
    s.lo_key = t;
    if t < s.hi_key {
        (s.hi_key, s.count_at_hi, s.has_count_at_hi) = (t + 1, above, true);
    }
    s.exit = SearchExit::Converged;
    Ok(HintStep::Ended)
}

/// `wide_window_tests` (f64 rows): a test `2^-shift` of the bracket away from the hint's side,
/// for shift = 10, 7 then 4 (`HINT_WINDOW_SHIFTS`), while the bracket's ordered values are
/// finite and the test lies strictly between them; they end once a test moves the bound on the
/// far side of the hint. `true` on a hit.
async fn wide_window_tests(
    w: &mut Warp<'_>,
    row: &WideRow<'_>,
    s: &mut WideSearch,
    (side, k): (HintSide, u32),
    lane: &Lanes<u32>,
) -> Result<bool, SimError> {
    if row.elem != ElemType::F64 {
        return Ok(false); // value-space steps: an i64 row has none
    }
    for shift in HINT_WINDOW_SHIFTS {
        let (lo, hi) = (ordered_of_key64(s.lo_key), ordered_of_key64(s.hi_key));
        if !(lo.is_finite() && hi.is_finite()) {
            return Ok(false);
        }
        let scale = 0.5f64.powi(shift); // a power of two: exact
        let width = hi * scale - lo * scale;
        let thres = if side == HintSide::Above { lo + width } else { hi - width };
        let t = number_key64(thres);
        if !(number_key64(lo) < t && t < number_key64(hi)) {
            return Ok(false); // thres is not NaN
        }
        let cnt = count_wide(w, row, t, lane).await?;
        let step = wide_update(s, t, cnt, k);
        if step == Ordering::Equal {
            s.exit = SearchExit::Hit;
            return Ok(true);
        }
        if (step == Ordering::Less) == (side == HintSide::Above) {
            return Ok(false); // the far bound moved
        }
    }
    Ok(false)
}

/// `search_wide_hinted`: Algorithm 1 with a hint — the hint test and the window tests, then
/// the value phase and the key phase from the bracket they leave (their tests count toward
/// `VALUE_PHASE_LIMIT`). A skipped hint test leaves exactly [`search_wide`].
async fn search_wide_hinted(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &WideRow<'_>,
    (lo_key, hi_key): (u64, u64),
    hint: f32,
    lane: &Lanes<u32>,
) -> Result<WideSearch, SimError> {
    let k = a.k as u32;
    let mut s = WideSearch::new(row, (lo_key, hi_key));
    let side = match wide_hint_test(w, a, row, &mut s, (hint, k), lane).await? {
        HintStep::Skipped => return search_wide(w, a, row, (lo_key, hi_key), lane).await,
        HintStep::Ended => return Ok(s),
        HintStep::Side(side) => side,
    };
    if wide_window_tests(w, row, &mut s, (side, k), lane).await? {
        return Ok(s);
    }
    s.exit = SearchExit::Converged;
    if s.lo_key == s.hi_key {
        return Ok(s);
    }
    if wide_value_phase(w, a, row, &mut s, lane, -1).await? {
        return Ok(s);
    }
    wide_key_phase(w, row, &mut s, k, lane, -1).await?;
    Ok(s)
}

// ---- Stage 3, select_wide: topk-ref's select_from and select_in_index_order -----------------

/// `WideCut`: keys `> strong_above` are all taken, then the first `band_left` of those
/// `>= band_lo`, in index order; `takes_all`: every key `>= band_lo` is taken (none above
/// `strong_above`, and no more than `band_left` of them: a hit's cut), which one ballot per
/// chunk selects.
#[derive(Clone, Copy, Debug)]
struct WideCut {
    strong_above: u64,
    band_lo: u64,
    band_left: u32,
    takes_all: bool,
}

/// `cut_wide` (topk-ref's `select_from`): early stopping takes the first k of `{key >= lo}`;
/// else a `cnt(hi) >= k` (`hi` never lowered, ties at the maximum) the first k of
/// `{key >= hi}`; else every key `>= hi` and the first `k - cnt(hi)` of `[lo, hi)`.
async fn cut_wide(
    w: &mut Warp<'_>,
    row: &WideRow<'_>,
    s: &WideSearch,
    k: u32,
    lane: &Lanes<u32>,
) -> Result<WideCut, SimError> {
    if s.exit == SearchExit::MaxIter {
        return Ok(WideCut {
            strong_above: u64::MAX,
            band_lo: s.lo_key,
            band_left: k,
            takes_all: false,
        });
    }
    let at_hi =
        if s.has_count_at_hi { s.count_at_hi } else { count_wide(w, row, s.hi_key, lane).await? };
    if at_hi >= k {
        let takes_all = at_hi == k;
        return Ok(WideCut { strong_above: u64::MAX, band_lo: s.hi_key, band_left: k, takes_all });
    }
    Ok(WideCut {
        strong_above: s.hi_key.wrapping_sub(1), // hi_key > lo_key >= 0: no wrap
        band_lo: s.lo_key,
        band_left: k - at_hi,
        takes_all: false,
    })
}

/// Where a row's results go: `out_val`, `out_idx`, and the offset of its first result.
struct WideOut {
    out_val: BufId,
    out_idx: BufId,
    out: Lanes<u64>,
}

/// One chunk of 32 consecutive elements (lane's is `i`) and its keys (`valid`: `i < m`).
struct WideChunk<'c> {
    key: &'c Lanes<u64>,
    valid: &'c Lanes<bool>,
    i: &'c Lanes<u32>,
}

/// `select_chunk_wide`: the chunk's strong elements and its first `band_left` band ones,
/// written at their places in index order, while fewer than k are: the input's bits from the
/// key where it keeps them ([`wide_key_keeps_bits`]), else re-read.
async fn select_chunk_wide(
    w: &mut Warp<'_>,
    row: &WideRow<'_>,
    chunk: WideChunk<'_>,
    (c, written): (&mut WideCut, &mut u32),
    (k, out): (u32, &WideOut),
) -> Result<(), SimError> {
    let at_least = chunk.key.zip(chunk.valid, |key, v| v && key >= c.band_lo);
    let selected = if c.takes_all {
        let all =
            w.ballot_sync(FULL_MASK, &at_least, "select_chunk_wide: ballot(key >= band_lo)")?;
        w.uniform(&all, "select_chunk_wide: selected")?
    } else {
        let strong = chunk.key.zip(chunk.valid, |key, v| v && key > c.strong_above);
        let band = at_least.zip(&strong, |ge, strong| ge && !strong);
        let strong_mask = w.ballot_sync(FULL_MASK, &strong, "select_chunk_wide: ballot(strong)")?;
        let strong_mask = w.uniform(&strong_mask, "select_chunk_wide: strong_mask")?;
        let band_all = w.ballot_sync(FULL_MASK, &band, "select_chunk_wide: ballot(band)")?;
        let band_mask = lowest_bits(w.uniform(&band_all, "select_chunk_wide: band")?, c.band_left);
        c.band_left -= band_mask.count_ones();
        strong_mask | band_mask
    };
    let at = w.lanemask_lt().map(|below| *written + (selected & below).count_ones());
    let mine = w.lane_id().zip(&at, |l, at| (selected >> l) & 1 == 1 && at < k);
    let saved = w.push_active(&mine, "select_chunk_wide: selected && at < k")?;
    let keeps = chunk.key.map(|key| wide_key_keeps_bits(row.elem, key));
    let inner = w.push_active(&keeps.map(|keeps| !keeps), "select_chunk_wide: !keeps_bits")?;
    let loaded = row.load(w, chunk.i, "select_chunk_wide: in[i]").await?;
    w.pop_active(inner);
    let from_key = chunk.key.map(|key| wide_value_of_key(row.elem, key, row.sign));
    let v = Lanes::select(&keeps, &from_key, &loaded);
    let dst = w.add_u64(&out.out, &at.map(u64::from), "select_chunk_wide: out + at")?;
    w.st_global64(out.out_val, &dst, &v, "select_chunk_wide: out_val[at] = v").await?;
    w.st_global(out.out_idx, &dst, chunk.i, "select_chunk_wide: out_idx[at] = i").await?;
    w.pop_active(saved);
    *written += selected.count_ones();
    Ok(())
}

/// Stage 3, `select_wide`: the chunks in index order — the register slots' first, then the
/// rest re-keyed — until k are written.
async fn select_wide(
    w: &mut Warp<'_>,
    row: &WideRow<'_>,
    s: &WideSearch,
    (k, lane): (u32, &Lanes<u32>),
    out: &WideOut,
) -> Result<(), SimError> {
    let mut c = cut_wide(w, row, s, k, lane).await?;
    let mut written = 0u32;
    for (j, key) in row.keys.iter().enumerate() {
        if written < k && 32 * j < row.m as usize {
            let i = lane.map(|l| l + 32 * j as u32);
            let valid = i.map(|i| i < row.m);
            let chunk = WideChunk { key, valid: &valid, i: &i };
            select_chunk_wide(w, row, chunk, (&mut c, &mut written), (k, out)).await?;
        }
    }
    for base in row.rest() {
        if written >= k {
            break;
        }
        let i = lane.map(|l| base + l);
        let valid = i.map(|i| i < row.m);
        let saved = w.push_active(&valid, "select_wide: valid")?;
        let loaded = row.key_at(w, &i, "select_wide: row.in[i]").await?;
        w.pop_active(saved);
        let key = Lanes::select(&valid, &loaded, &Lanes::splat(0));
        let chunk = WideChunk { key: &key, valid: &valid, i: &i };
        select_chunk_wide(w, row, chunk, (&mut c, &mut written), (k, out)).await?;
    }
    Ok(())
}

// ---- Stage 4, sort_wide: the sorted output (docs/contract.md §1) -----------------------------

/// `wide_before`: whether result `a` goes before result `b` — the greater key, then the lower
/// index (under [`Mutant::WideSortTiesHighIndex`], the higher).
fn wide_before(a: &KernelArgs, key_a: u64, idx_a: u32, key_b: u64, idx_b: u32) -> bool {
    // BUG (WideSortTiesHighIndex): ties of keys by the higher index.
    let idx_first =
        if a.has(Mutant::WideSortTiesHighIndex) { idx_a > idx_b } else { idx_a < idx_b };
    key_a > key_b || (key_a == key_b && idx_first)
}

/// Results per lane of the register sort (`WIDE_SORT_REGS`): k <= 256.
const WIDE_SORT_REGS: u32 = 8;

/// `sort_wide`: the row's k results in sorted order (docs/contract.md §1) — in registers for k
/// up to `32 WIDE_SORT_REGS` (the fewest registers that hold k: 1, 2, 4 or 8), in global memory
/// past it — then the simulator's check of the order.
async fn sort_wide(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &WideRow<'_>,
    out: &WideOut,
    (k, lane): (u32, &Lanes<u32>),
) -> Result<(), SimError> {
    match [1, 2, 4, WIDE_SORT_REGS].into_iter().find(|&e| k <= 32 * e) {
        Some(e) => sort_wide_regs(w, a, row, out, (k, lane), e).await?,
        None => sort_wide_global(w, a, row, out, (k, lane)).await?,
    }
    check_sorted_wide(w, row, out, k)
}

/// `sort_wide_regs<E>`: the same network over `32 E` places held in registers, for `k <= 32 E`:
/// place `e * 32 + lane` is the lane's register `e`, keyed once on the way in (the places past
/// k: key 0 and index `!0`, after every real result). A comparator of mask below 32 pairs a
/// register with the same register of lane `^ mask` (a shuffle); of a multiple of 32, two
/// registers of the lane; of both (mask `32 s - 1`: the first of a merge wider than 32),
/// register `e` with register `e ^ (s - 1)` of lane `^ 31`, both shuffled before either
/// changes. The values go back from their keys where the keys keep them, else re-read from the
/// input.
async fn sort_wide_regs(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &WideRow<'_>,
    out: &WideOut,
    (k, lane): (u32, &Lanes<u32>),
    e_count: u32,
) -> Result<(), SimError> {
    let mut key = Vec::new();
    let mut ix = Vec::new();
    for e in 0..e_count {
        let i = lane.map(|l| 32 * e + l);
        let at = w.add_u64(&out.out, &i.map(u64::from), "sort_wide_regs: val + i")?;
        let inside = i.map(|i| i < k);
        let saved = w.push_active(&inside, "sort_wide_regs: i < k")?;
        let v = w.ld_global64(out.out_val, &at, "sort_wide_regs: val[i]").await?;
        let x = w.ld_global(out.out_idx, &at, "sort_wide_regs: idx[i]").await?;
        w.pop_active(saved);
        let keyed = v.map(|b| wide_key(row.elem, b, row.sign));
        key.push(Lanes::select(&inside, &keyed, &Lanes::splat(0)));
        ix.push(Lanes::select(&inside, &x, &Lanes::splat(u32::MAX)));
    }
    let places = 32 * e_count;
    let mut size = 2;
    while size <= places {
        let mut stride = size / 2;
        while stride > 0 {
            let mask = if stride == size / 2 { size - 1 } else { stride };
            regs_pass(w, a, (&mut key, &mut ix), lane, mask)?;
            stride /= 2;
        }
        size *= 2;
    }
    for e in 0..e_count {
        let e = e as usize;
        let i = lane.map(|l| 32 * e as u32 + l);
        let at = w.add_u64(&out.out, &i.map(u64::from), "sort_wide_regs: val + i")?;
        let saved = w.push_active(&i.map(|i| i < k), "sort_wide_regs: i < k")?;
        let keeps = key[e].map(|key| wide_key_keeps_bits(row.elem, key));
        let inner = w.push_active(&keeps.map(|keeps| !keeps), "sort_wide_regs: !keeps_bits")?;
        let loaded = row.load(w, &ix[e], "sort_wide_regs: in[ix]").await?;
        w.pop_active(inner);
        let from_key = key[e].map(|key| wide_value_of_key(row.elem, key, row.sign));
        let v = Lanes::select(&keeps, &from_key, &loaded);
        w.st_global64(out.out_val, &at, &v, "sort_wide_regs: val[i] = v").await?;
        w.st_global(out.out_idx, &at, &ix[e], "sort_wide_regs: idx[i] = ix").await?;
        w.pop_active(saved);
    }
    Ok(())
}

/// `wide_exchange`: one place of a comparator keeps the result that goes first where it is the
/// lower place (`lower`), the other where it is the upper one.
fn wide_exchange(
    a: &KernelArgs,
    mine: (&Lanes<u64>, &Lanes<u32>),
    other: (&Lanes<u64>, &Lanes<u32>),
    lower: &Lanes<bool>,
) -> (Lanes<u64>, Lanes<u32>) {
    let pairs = |(k, x): (&Lanes<u64>, &Lanes<u32>)| k.zip(x, |k, x| (k, x));
    let first = pairs(other).zip(&pairs(mine), |(ok, ox), (k, x)| wide_before(a, ok, ox, k, x));
    let take = first.zip(lower, |first, lower| first == lower);
    (Lanes::select(&take, other.0, mine.0), Lanes::select(&take, other.1, mine.1))
}

/// One pass of [`sort_wide_regs`]'s network, comparator mask `mask`: each place keeps the
/// result that goes first where it is the lower place of its pair, the other where it is the
/// upper one (`wide_exchange`).
fn regs_pass(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    (key, ix): (&mut [Lanes<u64>], &mut [Lanes<u32>]),
    lane: &Lanes<u32>,
    mask: u32,
) -> Result<(), SimError> {
    let (lanes, regs) = ((mask & 31) as usize, (mask >> 5) as usize);
    let (up, down) = (Lanes::splat(true), Lanes::splat(false));
    for e in 0..key.len() {
        let pe = e ^ regs;
        let label = "sort_wide_regs: shfl_xor(the partner's register)";
        if regs == 0 {
            let ok = w.shfl_xor_sync(FULL_MASK, &key[e], lanes as u32, 32, label)?;
            let ox = w.shfl_xor_sync(FULL_MASK, &ix[e], lanes as u32, 32, label)?;
            let lower = lane.map(|l| l < (l ^ lanes as u32));
            let next = wide_exchange(a, (&key[e], &ix[e]), (&ok, &ox), &lower);
            (key[e], ix[e]) = next;
        } else if e < pe {
            let (mine_e, mine_pe) = ((key[e], ix[e]), (key[pe], ix[pe]));
            // lanes == 0: two registers of the lane; else register pe of lane ^ 31 for e, and e
            // of lane ^ 31 for pe, both shuffled before either changes
            let (for_e, for_pe) = if lanes == 0 {
                (mine_pe, mine_e)
            } else {
                let l = lanes as u32;
                let ok_e = w.shfl_xor_sync(FULL_MASK, &mine_pe.0, l, 32, label)?;
                let ok_pe = w.shfl_xor_sync(FULL_MASK, &mine_e.0, l, 32, label)?;
                let ox_e = w.shfl_xor_sync(FULL_MASK, &mine_pe.1, l, 32, label)?;
                let ox_pe = w.shfl_xor_sync(FULL_MASK, &mine_e.1, l, 32, label)?;
                ((ok_e, ox_e), (ok_pe, ox_pe))
            };
            let next_e = wide_exchange(a, (&mine_e.0, &mine_e.1), (&for_e.0, &for_e.1), &up);
            let next_pe = wide_exchange(a, (&mine_pe.0, &mine_pe.1), (&for_pe.0, &for_pe.1), &down);
            (key[e], ix[e]) = next_e;
            (key[pe], ix[pe]) = next_pe;
        }
    }
    Ok(())
}

/// `sort_wide_global`: the row's k results sorted in place in global memory — a bitonic network in
/// its one-direction form (each merge of width `size` starts with the comparators
/// `i <-> i ^ (size - 1)`, then `i <-> i ^ stride`) over the next power of two `n >= k`, lane
/// `l` taking the comparators of `i = l, l + 32, ...`; one whose upper place is past k is
/// skipped (the places past k stand for results after every real one); a `__syncwarp()` after
/// each step.
async fn sort_wide_global(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &WideRow<'_>,
    out: &WideOut,
    (k, lane): (u32, &Lanes<u32>),
) -> Result<(), SimError> {
    let n = k.next_power_of_two();
    let mut size = 2;
    while size <= n {
        let mut stride = size / 2;
        while stride > 0 {
            for base in (0..n).step_by(32) {
                let i = lane.map(|l| base + l);
                let saved = w.push_active(&i.map(|i| i < n), "sort_wide_global: i < n")?;
                let j = i.map(|i| if stride == size / 2 { i ^ (size - 1) } else { i ^ stride });
                let pair = i.zip(&j, |i, j| j > i && j < k);
                let inner = w.push_active(&pair, "sort_wide_global: !(j <= i || j >= k)")?;
                compare_swap(w, a, row, out, (&i, &j)).await?;
                w.pop_active(inner);
                w.pop_active(saved);
            }
            // BUG (WideSortMissingSyncwarp): the next step reads what other lanes swapped.
            if !a.has(Mutant::WideSortMissingSyncwarp) {
                w.syncwarp(FULL_MASK, "sort_wide_global: __syncwarp()").await?;
            }
            stride /= 2;
        }
        size *= 2;
    }
    Ok(())
}

/// One comparator of [`sort_wide_global`] in the active lanes: results `i` and `j` swapped where `j`
/// goes before `i` ([`wide_before`] on their keys, made from the values).
async fn compare_swap(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &WideRow<'_>,
    out: &WideOut,
    (i, j): (&Lanes<u32>, &Lanes<u32>),
) -> Result<(), SimError> {
    let at_i = w.add_u64(&out.out, &i.map(u64::from), "sort_wide_global: val + i")?;
    let at_j = w.add_u64(&out.out, &j.map(u64::from), "sort_wide_global: val + j")?;
    let vi = w.ld_global64(out.out_val, &at_i, "sort_wide_global: val[i]").await?;
    let vj = w.ld_global64(out.out_val, &at_j, "sort_wide_global: val[j]").await?;
    let xi = w.ld_global(out.out_idx, &at_i, "sort_wide_global: idx[i]").await?;
    let xj = w.ld_global(out.out_idx, &at_j, "sort_wide_global: idx[j]").await?;
    let key = |v: &Lanes<u64>| v.map(|b| wide_key(row.elem, b, row.sign));
    let (ki, kj) = (key(&vi).zip(&xi, |k, x| (k, x)), key(&vj).zip(&xj, |k, x| (k, x)));
    let swap = kj.zip(&ki, |(kj, xj), (ki, xi)| wide_before(a, kj, xj, ki, xi));
    let saved = w.push_active(&swap, "sort_wide_global: wide_before(j, i)")?;
    w.st_global64(out.out_val, &at_i, &vj, "sort_wide_global: val[i] = vj").await?;
    w.st_global64(out.out_val, &at_j, &vi, "sort_wide_global: val[j] = vi").await?;
    w.st_global(out.out_idx, &at_i, &xj, "sort_wide_global: idx[i] = xj").await?;
    w.st_global(out.out_idx, &at_j, &xi, "sort_wide_global: idx[j] = xi").await?;
    w.pop_active(saved);
    Ok(())
}

/// The simulator's contract check on the sorted row, looked at host-side: its k results
/// strictly in sorted order (the greater key, then the lower index: none lost or doubled),
/// each naming an element of the row.
fn check_sorted_wide(
    w: &mut Warp<'_>,
    row: &WideRow<'_>,
    out: &WideOut,
    k: u32,
) -> Result<(), SimError> {
    if !w.checks() {
        return Ok(());
    }
    let at = out.out.lane(0);
    let vals = w.peek_global64(out.out_val, at, u64::from(k));
    let idx = w.peek_global(out.out_idx, at, u64::from(k));
    let pairs: Vec<(u64, u32)> =
        vals.iter().zip(&idx).map(|(&v, &i)| (wide_key(row.elem, v, row.sign), i)).collect();
    let sorted = pairs.windows(2).all(|p| p[0].0 > p[1].0 || (p[0].0 == p[1].0 && p[0].1 < p[1].1));
    let named = pairs.iter().all(|&(_, i)| i < row.m);
    w.check_that(sorted && named, "sort_wide: the results in sorted order")
}

// ---- The entry point's body ------------------------------------------------------------------

/// `rtopk_wide_rows_impl<EPL, RAGGED>`: warp `w` of block `b` takes row `b * WIDE_WARPS + w`
/// (rows past the end return: warp-uniform), EPL the plan's keys per lane. A ragged unit
/// (`RAGGED`: the plan's unit is a ragged twin) reads the row's own width and k (`row_args`),
/// pads its outputs past its k (`pad_results`), and starts its search at its hint where the
/// launch gives hints and the search is exact (Algorithm 2, a precision and a recall target
/// ignore them, as bisect does). The row's iteration count where the launch asks for counts.
pub(crate) async fn rtopk_wide_rows_impl(
    w: &mut Warp<'_>,
    launch: &Params<'_>,
) -> Result<(), SimError> {
    let lane = w.lane_id();
    let row_id = u64::from(w.block_idx()) * u64::from(WIDE_WARPS) + u64::from(w.warp_idx());
    if row_id >= launch.a.n as u64 {
        w.exit();
        return Ok(());
    }
    let ragged = launch.plan.unit.is_ragged();
    // a wide row never splits: row_args's place is place_row's
    let (p, at) =
        if ragged { launch.row_args(w, row_id)? } else { (*launch, place_row(w, launch, row_id)?) };
    let p = &p;
    let (a, k) = (&p.a, p.a.k as u32);
    let first = lane.map(|l| l == 0);
    let width_k = launch.a.k as u32;
    if ragged && k < width_k {
        let bufs = (p.out_val, p.out_idx, &at.out);
        pad_results(w, bufs, p.elem, (k, width_k), &lane, 32).await?;
    }
    if k == 0 {
        return write_iterations(w, (p.out_iter, row_id), 0, &first).await;
    }
    let mut row = WideRow {
        keys: vec![Lanes::splat(0u64); p.plan.keys_per_lane],
        x: p.x,
        input: at.input,
        m: a.m as u32, // < 2^32: the plan checked
        sign: a.sign(),
        elem: p.elem,
    };
    let range = load_wide(w, a, &mut row, &lane).await?;
    let b = &a.bisect;
    let exact = b.max_iter.is_none() && b.precision == 0.0 && !b.recall.is_some_and(|r| r > 0.0);
    let hint = if ragged && exact { p.row_hint(row_id) } else { None };
    let s = match hint {
        Some(hint) => search_wide_hinted(w, a, &row, range, hint, &lane).await?,
        None => search_wide(w, a, &row, range, &lane).await?,
    };
    cover_wide(p, &s);
    let out = WideOut { out_val: p.out_val, out_idx: p.out_idx, out: at.out };
    select_wide(w, &row, &s, (k, &lane), &out).await?;
    if p.sorted && k > 1 {
        w.syncwarp(FULL_MASK, "rtopk_wide_rows_impl: __syncwarp() (the selection's writes)")
            .await?;
        sort_wide(w, a, &row, &out, (k, &lane)).await?;
    }
    write_iterations(w, (p.out_iter, row_id), s.iterations, &first).await
}

/// Counts a row's search in the run's coverage (the simulator's report, no kernel state).
fn cover_wide(p: &Params<'_>, s: &WideSearch) {
    if s.key_phase {
        p.covered(Branch::KeyPhase);
    }
    p.covered(match s.exit {
        SearchExit::Hit => Branch::ExitHit,
        SearchExit::Converged => Branch::ExitConverged,
        SearchExit::Precision => Branch::ExitPrecision,
        SearchExit::Recall => Branch::ExitRecall,
        SearchExit::MaxIter => Branch::EarlyStop,
    });
}

#[cfg(test)]
mod tests {
    use topk_ref::{Element, Mode};

    use super::*;

    /// Special f64 patterns: ±0, ±inf, the ends, the least normal, subnormals of both signs,
    /// NaN of both signs, quiet and signalling, with payloads.
    const FLOATS: [f64; 15] = [
        0.0,
        -0.0,
        1.5,
        -2.25,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MAX,
        -f64::MAX,
        f64::MIN_POSITIVE,
        f64::from_bits(1),
        f64::from_bits(SIGN64 | 1),
        f64::NAN,
        f64::from_bits(0xfff0_0000_0000_0001),
        f64::from_bits(0x7ff0_0000_0000_1234),
        f64::from_bits(0xfff8_0000_0000_1234),
    ];

    /// Special i64 values: the ends and their neighbours, 0, ±1, values far from both.
    const INTEGERS: [i64; 9] =
        [i64::MIN, i64::MIN + 1, -(1 << 40), -1, 0, 1, 1 << 62, i64::MAX - 1, i64::MAX];

    /// Every special f64 and i64 pattern's key is topk-ref's in both modes, and a number's key
    /// gives its ordered value back (zero as +0.0).
    #[test]
    fn wide_keys_are_topk_refs() {
        for v in FLOATS {
            for (mode, sign) in [(Mode::Largest, 1.0), (Mode::Smallest, -1.0)] {
                let bits = v.to_bits();
                assert_eq!(wide_key(ElemType::F64, bits, sign), v.key(mode), "{v:e} {mode:?}");
            }
            if !v.is_nan() {
                let back = ordered_of_key64(number_key64(v));
                assert_eq!(back.to_bits(), if v == 0.0 { 0 } else { v.to_bits() });
            }
        }
        for v in INTEGERS {
            for (mode, sign) in [(Mode::Largest, 1.0), (Mode::Smallest, -1.0)] {
                assert_eq!(wide_key(ElemType::I64, v as u64, sign), v.key(mode), "{v} {mode:?}");
                assert_eq!(reference_key64(ElemType::I64, v as u64, mode), v.key(mode));
            }
        }
        assert!(ordered_of_key64(u64::MAX).is_nan() && ordered_of_key64(0).is_nan());
    }

    /// A key that keeps its element's bits gives them back in both modes ([`wide_value_of_key`]
    /// undoes [`wide_key`]); the keys that do not are exactly those of ±0.0 and NaN.
    #[test]
    fn keys_that_keep_the_bits_give_them_back() {
        for v in FLOATS {
            for sign in [1.0f32, -1.0] {
                let key = wide_key(ElemType::F64, v.to_bits(), sign);
                let keeps = wide_key_keeps_bits(ElemType::F64, key);
                assert_eq!(keeps, !v.is_nan() && v != 0.0, "{v:e} sign {sign}");
                if keeps {
                    let back = wide_value_of_key(ElemType::F64, key, sign);
                    assert_eq!(back, v.to_bits(), "{v:e} sign {sign}");
                }
            }
        }
        for v in INTEGERS {
            for sign in [1.0f32, -1.0] {
                let key = wide_key(ElemType::I64, v as u64, sign);
                assert!(wide_key_keeps_bits(ElemType::I64, key), "{v} sign {sign}");
                assert_eq!(
                    wide_value_of_key(ElemType::I64, key, sign),
                    v as u64,
                    "{v} sign {sign}"
                );
            }
        }
    }

    /// The word-level forms agree with their definitions on every special pattern and on a
    /// million pseudo-random ones: [`number_key64`] is topk-ref's f64 key, [`bits_of_key64`]
    /// undoes [`key_of_bits64`], [`wide_key_keeps_bits`] fails exactly on ±0.0's key and the
    /// NaN keys.
    #[test]
    fn word_forms_match_their_definitions() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let random = std::iter::repeat_with(move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        });
        let specials = FLOATS.iter().map(|v| v.to_bits());
        let keys = [0, 1, SIGN64 - 1, SIGN64, SIGN64 + 1, u64::MAX - 1, u64::MAX];
        for bits in specials.chain(keys).chain(random.take(1 << 20)) {
            let v = f64::from_bits(bits);
            assert_eq!(bits_of_key64(key_of_bits64(bits)), bits);
            if !v.is_nan() {
                assert_eq!(number_key64(v), v.key(Mode::Largest), "{v:e}");
                assert_eq!(wide_key(ElemType::F64, bits, 1.0), v.key(Mode::Largest), "{v:e}");
                assert_eq!(wide_key(ElemType::F64, bits, -1.0), v.key(Mode::Smallest), "{v:e}");
            }
            let plain = bits != SIGN64 && bits != 0 && bits != u64::MAX;
            assert_eq!(wide_key_keeps_bits(ElemType::F64, bits), plain, "{bits:#x}");
        }
    }

    #[test]
    fn midpoints_stay_finite() {
        assert_eq!(midpoint64(f64::MAX, f64::MAX), f64::MAX);
        assert_eq!(midpoint64(-f64::MAX, f64::MAX), 0.0);
        assert_eq!(midpoint64(1.0, 2.0), 1.5);
        assert_eq!(midpoint64(-f64::MAX, -f64::MAX * 0.5), -f64::MAX * 0.75);
    }
}
