//! Row storage (the CUDA kernel's `rows.cuh`): where each launch family keeps a row's keys
//! and how `count_ge` reaches them — [`WarpRow`] (EPL keys per lane of a row's 8, 16 or 32
//! lanes), [`PackedRow`] (a 16-bit row's EPL elements per lane, two per register),
//! [`CandRow`] (a narrowed row's candidates, C per lane of one warp), [`BlockRow`] (32 keys
//! per thread, then shared memory, then re-keyed from global memory) — and the row-wide
//! reductions and scans (`row_butterfly`, `row_sum`, `row_min`, `row_max`, `row_scan`,
//! `block_prefix`).

use topk_ref::Mode;

use crate::engine::error::SimError;
use crate::engine::lanes::{FULL_MASK, Lanes};
use crate::engine::warp::Warp;
use crate::rtopk::args::{BLOCK_EPL, KernelArgs};
use crate::rtopk::mutant::Mutant;
use crate::rtopk::order::{
    ElemType, float_of16, is_nan16, key16_neg_inf, key16_of_ordered, key16_pos_inf,
    ordered_of_key16, own_key, reference_key,
};

/// Words of one bit per slot for `n` slots (`MASK_WORDS(N)`).
#[inline]
pub(crate) fn mask_words(n: usize) -> usize {
    n.div_ceil(32)
}

/// `slots_ge`: bit `j % 32` of word `j / 32` set where `keys[j] >= t`, in every lane.
#[inline]
pub(crate) fn slots_ge(keys: &[Lanes<u32>], t: u32, ge: &mut [Lanes<u32>]) {
    for (w, g) in ge.iter_mut().enumerate() {
        let slots = &keys[32 * w..keys.len().min(32 * w + 32)];
        let mut bits = Lanes::splat(0u32);
        for (j, key) in slots.iter().enumerate() {
            bits = bits.zip(key, |b, k| b | (u32::from(k >= t) << j));
        }
        *g = bits;
    }
}

/// The lanes' number of set bits over the words of `ge` (`__popc` per word, summed).
#[inline]
pub(crate) fn popc_words(ge: &[Lanes<u32>]) -> Lanes<u32> {
    ge.iter().fold(Lanes::splat(0u32), |c, g| c.zip(g, |c, g| c.wrapping_add(g.count_ones())))
}

/// A count's threshold: `t`, or `t + 1` under [`Mutant::CountGreaterThan`] (`key > t`).
#[inline]
pub(crate) fn count_threshold(a: &KernelArgs, t: u32) -> u32 {
    if a.has(Mutant::CountGreaterThan) { t.saturating_add(1) } else { t }
}

/// The row's lanes: their mask and their number (8, 16 or 32).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowLanes {
    /// The collectives' mask (`row.lanes`).
    pub(crate) mask: u32,
    /// `LANES`.
    pub(crate) width: u32,
}

/// `row_butterfly`: `op` over the row's lanes in `log2(LANES)` `shfl_xor` steps; every lane
/// ends with the result.
fn row_butterfly(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    r: RowLanes,
    v: Lanes<u32>,
    op: fn(u32, u32) -> u32,
    label: &'static str,
) -> Result<Lanes<u32>, SimError> {
    let mut v = v;
    let mut d = r.width / 2;
    while d >= 1 {
        // BUG (WrongShuffleOffset): offsets LANES, ..., 2 — lanes 2j, 2j + 1 never meet.
        let offset = if a.has(Mutant::WrongShuffleOffset) { 2 * d } else { d };
        let other = w.shfl_xor_sync(r.mask, &v, offset, r.width, label)?;
        v = v.zip(&other, op);
        d /= 2;
    }
    Ok(v)
}

/// `row_sum`: one `__reduce_add_sync` for a whole warp, a butterfly within a part-warp row's
/// lanes shuffled under the lanes active with it (`__activemask()`, as a coalesced group's
/// collectives are), of which the row's own are always a part.
pub(crate) fn row_sum(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    r: RowLanes,
    v: Lanes<u32>,
    label: &'static str,
) -> Result<Lanes<u32>, SimError> {
    // BUG (PartRowFullMaskReduce): the whole-warp reduction for every row width.
    if r.width == 32 || a.has(Mutant::PartRowFullMaskReduce) {
        return w.reduce_add_sync(FULL_MASK, &v, label);
    }
    let active = RowLanes { mask: w.active_mask(), width: r.width };
    row_butterfly(w, a, active, v, u32::wrapping_add, label)
}

/// `row_min`: the row's lanes' minimum.
pub(crate) fn row_min(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    r: RowLanes,
    v: Lanes<u32>,
    label: &'static str,
) -> Result<Lanes<u32>, SimError> {
    if r.width == 32 {
        return w.reduce_min_sync(FULL_MASK, &v, label);
    }
    row_butterfly(w, a, r, v, u32::min, label)
}

/// `row_max`: the row's lanes' maximum.
pub(crate) fn row_max(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    r: RowLanes,
    v: Lanes<u32>,
    label: &'static str,
) -> Result<Lanes<u32>, SimError> {
    if r.width == 32 {
        return w.reduce_max_sync(FULL_MASK, &v, label);
    }
    row_butterfly(w, a, r, v, u32::max, label)
}

/// `row_scan`: the inclusive prefix sum of `v` over the row's lanes (`sub`: each lane's place
/// among them), `shfl_up` with the row's width.
pub(crate) fn row_scan(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    r: RowLanes,
    sub: &Lanes<u32>,
    v: Lanes<u32>,
) -> Result<Lanes<u32>, SimError> {
    let mut v = v;
    let width = if a.has(Mutant::PartRowScanWidth32) { 32 } else { r.width }; // BUG: width 32
    let mut d = 1u32;
    while d < r.width {
        let up = w.shfl_up_sync(r.mask, &v, d, width, "row_scan: shfl_up(v, d)")?;
        let take = sub.map(|s| s >= d);
        v = Lanes::select(&take, &v.zip(&up, u32::wrapping_add), &v);
        d <<= 1;
    }
    Ok(v)
}

/// What every row type offers the search: `count_ge_positive(t)` for `t >= 1`, the row's
/// width, and its narrowing cap (`NARROW_CAP`, 0 where it does not narrow).
pub(crate) trait Row {
    /// `count_ge(t)` for `t >= 1`: the row's keys `>= t`, uniform over the row's lanes.
    async fn count_ge_positive(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        t: u32,
    ) -> Result<u32, SimError>;
    /// `count_above_and_at_least`: the hint test's two counts, `(keys > t, keys >= t)` for
    /// `t >= 1` where `t + 1` does not wrap — two counting passes; block and cluster rows sum
    /// both in one round.
    async fn count_above_and_at_least(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        t: u32,
    ) -> Result<(u32, u32), SimError> {
        counted_twice(self, w, a, t).await
    }
    /// `count_at_value`: a 16-bit row's value-phase test at `c`, the least value of the type
    /// `>=` its threshold (ordered bits), whose own key is `t`: `count_ge_positive(t)`, but a
    /// packed row compares its words with `c` itself (`PackedRow::count_ge_value`).
    async fn count_at_value(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        c: u32,
        t: u32,
    ) -> Result<u32, SimError> {
        let _ = c;
        self.count_ge_positive(w, a, t).await
    }
    /// M.
    fn m(&self) -> u32;
    /// Most keys the row narrows to (0: it does not).
    fn narrow_cap(&self) -> u32;
}

/// Rows shorter than this sum the hint test's two counts in one round (the block and cluster
/// rows' `count_above_and_at_least`): each count then fits in 16 bits of one word, packed as
/// `at_least << 16 | above` (the low halves' sum never carries into the high one).
pub(crate) const PAIRED_COUNT_LIMIT: u32 = 0x10000;

/// The hint test's two counts in two counting passes: `(keys > t, keys >= t)`.
pub(crate) async fn counted_twice<R: Row + ?Sized>(
    row: &mut R,
    w: &mut Warp<'_>,
    a: &KernelArgs,
    t: u32,
) -> Result<(u32, u32), SimError> {
    let at_least = row.count_ge_positive(w, a, t).await?;
    let above = row.count_ge_positive(w, a, t + 1).await?;
    Ok((above, at_least))
}

/// `s[i] = 0` for the `words` shared words from `base`, the block's threads striding by
/// `blockDim.x` (the kernel's one-line zeroing loops: the histograms' and the rounds' words).
pub(crate) async fn zero_shared_words(
    w: &mut Warp<'_>,
    base: u32,
    words: u32,
    label: &'static str,
) -> Result<(), SimError> {
    let tid = w.thread_idx();
    for from in (0..words).step_by(w.block_dim() as usize) {
        let i = tid.map(|t| t + from);
        let saved = w.push_active(&i.map(|i| i < words), "i < words")?;
        w.st_shared(&i.map(|i| base + i), &Lanes::splat(0), label).await?;
        w.pop_active(saved);
    }
    Ok(())
}

/// The packed pair of counts back: `(above, at_least)`.
pub(crate) fn unpack_pair(both: u32) -> (u32, u32) {
    (both & 0xffff, both >> 16)
}

/// `count_ge(t)`: the whole row for `t = 0` (padding slots hold key 0), else counted.
pub(crate) async fn count_ge<R: Row>(
    row: &mut R,
    w: &mut Warp<'_>,
    a: &KernelArgs,
    t: u32,
) -> Result<u32, SimError> {
    if t == 0 { Ok(row.m()) } else { row.count_ge_positive(w, a, t).await }
}

/// What the selection (`classify`) and the narrowing (`copy_candidates`) ask of a row held in
/// registers: its slots per thread, the slots whose key is `>= t`, a slot's (own) key.
pub(crate) trait Slots {
    /// Slots per thread (EPL).
    fn slots(&self) -> usize;
    /// `slots_ge`: bit `j % 32` of word `j / 32` set where slot `j`'s key is `>= t`.
    fn slots_ge(&self, t: u32, ge: &mut [Lanes<u32>]);
    /// `slot_key`: slot `j`'s own key in every lane.
    fn slot_key(&self, j: usize) -> Lanes<u32>;
}

/// One row of a warp-row launch: lane `sub` of its `LANES` lanes holds the keys of elements
/// `sub * EPL .. sub * EPL + EPL - 1` (`keys[j]`, padding past M is key 0).
#[derive(Clone, Debug)]
pub(crate) struct WarpRow {
    /// `keys[EPL]`, one register per slot.
    pub(crate) keys: Vec<Lanes<u32>>,
    /// M.
    pub(crate) m: u32,
    /// The row's lanes.
    pub(crate) lanes: RowLanes,
    /// `NARROW_CAP`: [`crate::rtopk::args::CAND_CAP`] where the row narrows, else 0.
    pub(crate) cap: u32,
    /// The last count's slot masks (`ge_last`, for `narrow_row`).
    pub(crate) ge_last: Vec<Lanes<u32>>,
    /// The row's share of the stage (the shared counter of [`Mutant::SharedCounterNoBarrier`]).
    pub(crate) stage: u32,
}

impl Row for WarpRow {
    async fn count_ge_positive(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        t: u32,
    ) -> Result<u32, SimError> {
        slots_ge(&self.keys, count_threshold(a, t), &mut self.ge_last);
        let c = popc_words(&self.ge_last);
        let sum = if a.has(Mutant::SharedCounterNoBarrier) && self.lanes.width == 32 {
            shared_counter_sum(w, self.stage, &c).await?
        } else {
            row_sum(w, a, self.lanes, c, "count_ge: row_sum(c)")?
        };
        w.uniform(&sum, "count_ge: cnt")
    }

    fn m(&self) -> u32 {
        self.m
    }

    fn narrow_cap(&self) -> u32 {
        self.cap
    }
}

impl Slots for WarpRow {
    fn slots(&self) -> usize {
        self.keys.len()
    }

    fn slots_ge(&self, t: u32, ge: &mut [Lanes<u32>]) {
        slots_ge(&self.keys, t, ge);
    }

    fn slot_key(&self, j: usize) -> Lanes<u32> {
        self.keys[j]
    }
}

/// One 16-bit row of a warp-row launch (docs/kernel.md, "16-bit rows"): lane `sub` holds its
/// EPL elements two per register, element j in half `j % 2` of `words[j / 2]` (low half
/// first), as *ordered* bits — the input's in largest mode, the sign bit flipped in smallest
/// mode; slots past M hold `NEG_INF16`. Thresholds are own (16-bit) keys; a count compares two
/// slots per word with the threshold's value, but for the NaN-only and the every-key
/// thresholds.
#[derive(Clone, Debug)]
pub(crate) struct PackedRow {
    /// `words[WORDS]`, `WORDS = ceil(EPL / 2)`.
    pub(crate) words: Vec<Lanes<u32>>,
    /// EPL.
    pub(crate) epl: usize,
    /// M.
    pub(crate) m: u32,
    /// The row's lanes.
    pub(crate) lanes: RowLanes,
    /// `NARROW_CAP`.
    pub(crate) cap: u32,
    /// The lane's slots inside the row.
    pub(crate) inside: Lanes<u32>,
    /// Largest mode (else smallest).
    pub(crate) largest: bool,
    /// The 16-bit type.
    pub(crate) elem: ElemType,
}

impl PackedRow {
    /// An empty row of `epl` slots per lane (filled by `load_row`).
    pub(crate) fn new(
        epl: usize,
        (m, lanes, cap): (u32, RowLanes, u32),
        a: &KernelArgs,
        elem: ElemType,
    ) -> Self {
        Self {
            words: vec![Lanes::splat(0u32); epl.div_ceil(2)],
            epl,
            m,
            lanes,
            cap,
            inside: Lanes::splat(0),
            largest: a.mode == Mode::Largest,
            elem,
        }
    }

    /// `half(j)`: slot `j`'s ordered 16 bits in every lane.
    pub(crate) fn half(&self, j: usize) -> Lanes<u32> {
        let shift = 16 * (j % 2) as u32;
        self.words[j / 2].map(|w| (w >> shift) & 0xffff)
    }

    /// `nan_slots`: the lane's NaN slots inside the row (padding is -inf, never NaN).
    fn nan_slots(&self) -> Lanes<u32> {
        let mut c = Lanes::splat(0u32);
        for j in 0..self.epl {
            let h = self.half(j);
            let nan = Lanes::from_fn(|l| {
                u32::from((j as u32) < self.inside.lane(l) && is_nan16(self.elem, h.lane(l)))
            });
            c = c.zip(&nan, u32::wrapping_add);
        }
        c
    }

    /// `lane_count_ge`: the lane's slots whose own key is `>= t` (`t >= 1`), docs/kernel.md's
    /// three cases: above +inf's key only NaN keys, at or below -inf's every key, else the
    /// packed compares with the threshold's value.
    fn lane_count_ge(&self, a: &KernelArgs, t: u32) -> Lanes<u32> {
        if t > key16_pos_inf(self.elem) {
            return if self.largest { self.nan_slots() } else { Lanes::splat(0) };
        }
        if t <= key16_neg_inf(self.elem) {
            let nan = self.nan_slots();
            return if self.largest {
                self.inside
            } else {
                self.inside.zip(&nan, u32::wrapping_sub)
            };
        }
        count_words_ge(a, self.elem, self.largest, &self.words, ordered_of_key16(t))
    }

    /// The simulator's contract check on a count: each lane's packed count is the number of
    /// its slots inside the row whose element's own key (topk-ref's `Element::key` of the
    /// input's bits, read back from the ordered bits) is `>= t`.
    fn check_count(&self, w: &mut Warp<'_>, t: u32, got: &Lanes<u32>) -> Result<(), SimError> {
        if !w.checks() {
            return Ok(());
        }
        let (mode, flip) = if self.largest { (Mode::Largest, 0) } else { (Mode::Smallest, 0x8000) };
        let mut want = Lanes::splat(0u32);
        for j in 0..self.epl {
            let h = self.half(j);
            want = Lanes::from_fn(|l| {
                let key = reference_key(self.elem, h.lane(l) ^ flip, mode);
                want.lane(l) + u32::from((j as u32) < self.inside.lane(l) && key >= t)
            });
        }
        w.check(&want.eq_lanes(got), "count_ge: the packed count is the own keys' (16-bit rows)")
    }
}

/// `packed_ge`: per half of `word`, whether its value is `>= h`'s — in largest mode NaN too
/// (`set.geu`: unordered or `>=`), in smallest mode not (`set.ge`) — as a mask, 0xffff in
/// each half that is, else 0 (`set`'s `.u32` destination).
#[inline]
fn packed_ge(a: &KernelArgs, elem: ElemType, largest: bool, word: u32, h: u32) -> u32 {
    // BUG (Nan16CountedSmallest): `set.geu` in both modes.
    half_masks(elem, largest || a.has(Mutant::Nan16CountedSmallest), word, h)
}

/// `packed_ge`'s masks: `geu` (`set.geu`) counts NaN, else `set.ge`.
fn half_masks(elem: ElemType, geu: bool, word: u32, h: u32) -> u32 {
    let t = float_of16(elem, h);
    let ge = |bits: u32| {
        let v = float_of16(elem, bits);
        // geu: unordered (NaN) or >=
        if geu { v.partial_cmp(&t) != Some(std::cmp::Ordering::Less) } else { v >= t }
    };
    (if ge(word & 0xffff) { 0xffff } else { 0 }) | (if ge(word >> 16) { 0xffff_0000 } else { 0 })
}

/// `halves_set`: the halves set in `s`, a sum mod 2^32 of half masks (0xffff or 0 each): with
/// c_lo low and c_hi high halves set, `s = c_lo 0xffff + c_hi 0xffff0000`, so `-s = c_lo +
/// (c_hi - c_lo) 2^16`, and the high half of `-s (2^17 + 1)` is `c_lo + c_hi` (mod 2^16).
pub(crate) fn halves_set(s: u32) -> u32 {
    s.wrapping_mul(0xfffd_ffff) >> 16
}

/// `words_ge`: the selection's slot masks of a 16-bit row at the ordered threshold `h` (a
/// threshold strictly between -inf's and +inf's keys), with the kernel's placement: one mask
/// op a word keeps the two bits it needs where they lie (words `r < 8` of a mask word: bit `2r`
/// of the low half and `2r + 17` of the high half; words `8 <= r < 16`: bit `2r - 16` of the low
/// half and `2r + 1` of the high half), two shifts a mask word move them into place. Padding
/// (-inf) never counts.
fn words_ge(elem: ElemType, largest: bool, words: &[Lanes<u32>], h: u32, ge: &mut [Lanes<u32>]) {
    let mut low = vec![Lanes::splat(0u32); ge.len()];
    let mut high = low.clone();
    for (q, word) in words.iter().enumerate() {
        let d = word.map(|w| half_masks(elem, largest, w, h));
        let r = (q % 16) as u32;
        let (acc, keep) = if r < 8 {
            (&mut low[q / 16], 1 << (2 * r) | 1 << (2 * r + 17))
        } else {
            (&mut high[q / 16], 1 << (2 * r - 16) | 1 << (2 * r + 1))
        };
        *acc = acc.zip(&d, |a, d| a | (d & keep));
    }
    for (g, (lo, hi)) in ge.iter_mut().zip(low.iter().zip(&high)) {
        let placed = lo.zip(hi, |l, h| (l & 0xffff) | (l >> 16) | (h << 16) | (h & 0xffff_0000));
        *g = g.zip(&placed, |g, p| g | p);
    }
}

/// `count_words_ge`: the lane's halves whose value is `>= h`'s, one packed compare per word,
/// the masks summed mod 2^32 (the GPU adds three at a time) and read by `halves_set`.
fn count_words_ge(
    a: &KernelArgs,
    elem: ElemType,
    largest: bool,
    words: &[Lanes<u32>],
    h: u32,
) -> Lanes<u32> {
    let mut acc = Lanes::splat(0u32);
    for word in words {
        acc = acc.zip(word, |c, w| c.wrapping_add(packed_ge(a, elem, largest, w, h)));
    }
    acc.map(halves_set)
}

impl PackedRow {
    /// `count_ge_value`: a value-phase test at `c`, the least value of the type `>=` its
    /// threshold, whose own key is `t` (the simulator's check): `lane_count_ge`'s middle case,
    /// comparing with `c` itself (strictly between -inf and +inf, and of `t`'s value, -0.0
    /// comparing as +0.0), without the key's round trip.
    async fn count_ge_value(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        c: u32,
        t: u32,
    ) -> Result<u32, SimError> {
        // BUG (CountGreaterThan): counting `key > t`, the value of `t + 1`.
        let h = if a.has(Mutant::CountGreaterThan) { ordered_of_key16(t + 1) } else { c };
        let lanes = count_words_ge(a, self.elem, self.largest, &self.words, h);
        self.row_count(w, a, t, lanes)
    }

    /// The row's count from its lanes' counts at own key `t`: the simulator's check of each
    /// lane's count, then `row_sum`.
    fn row_count(
        &self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        t: u32,
        lanes: Lanes<u32>,
    ) -> Result<u32, SimError> {
        self.check_count(w, t, &lanes)?;
        let sum = row_sum(w, a, self.lanes, lanes, "count_ge: row_sum(c)")?;
        w.uniform(&sum, "count_ge: cnt")
    }
}

impl Row for PackedRow {
    async fn count_ge_positive(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        t: u32,
    ) -> Result<u32, SimError> {
        let c = self.lane_count_ge(a, count_threshold(a, t));
        self.row_count(w, a, t, c)
    }

    async fn count_at_value(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        c: u32,
        t: u32,
    ) -> Result<u32, SimError> {
        self.count_ge_value(w, a, c, t).await
    }

    fn m(&self) -> u32 {
        self.m
    }

    fn narrow_cap(&self) -> u32 {
        self.cap
    }
}

impl Slots for PackedRow {
    fn slots(&self) -> usize {
        self.epl
    }

    /// The three cases of `lane_count_ge`: between -inf's and +inf's keys the packed
    /// compares (`words_ge`), else per slot, restricted to the slots inside the row, and
    /// `t = 0` (a cut's `band_lo` where the bracket's low end stayed at smallest mode's NaN
    /// key): every slot inside.
    fn slots_ge(&self, t: u32, ge: &mut [Lanes<u32>]) {
        let (top, bottom) = (t > key16_pos_inf(self.elem), t <= key16_neg_inf(self.elem));
        for g in ge.iter_mut() {
            *g = Lanes::splat(0);
        }
        if !top && !bottom {
            words_ge(self.elem, self.largest, &self.words, ordered_of_key16(t), ge);
            return;
        }
        let every = t == 0;
        for j in 0..self.epl {
            let o = self.half(j);
            let bits = Lanes::from_fn(|l| {
                let nan = is_nan16(self.elem, o.lane(l));
                let hit = every || if top { self.largest && nan } else { self.largest || !nan };
                u32::from((j as u32) < self.inside.lane(l) && hit) << (j % 32)
            });
            ge[j / 32] = ge[j / 32].zip(&bits, |g, b| g | b);
        }
    }

    fn slot_key(&self, j: usize) -> Lanes<u32> {
        let (elem, largest) = (self.elem, self.largest);
        self.half(j).map(|o| key16_of_ordered(elem, o, largest))
    }
}

/// The lane's min and max own key over its words where every slot is inside the row
/// (`range_full_words`): packed min / max of the ordered values, NaN kept at its mode's end
/// (largest: `min`, which drops a NaN, and `max.NaN`, which keeps it; smallest: `min.NaN` and
/// `max`), then the two halves' keys.
pub(crate) fn range_full_words(elem: ElemType, words: &[u32], largest: bool) -> (u32, u32) {
    let pick = |x: u32, y: u32, nan_wins: bool, want_min: bool| -> u32 {
        let (nx, ny) = (is_nan16(elem, x), is_nan16(elem, y));
        if nx || ny {
            // min / max drop a NaN operand; the .NaN forms return the canonical NaN
            return if nan_wins || (nx && ny) {
                0x7fff
            } else if nx {
                y
            } else {
                x
            };
        }
        let (fx, fy) = (float_of16(elem, x), float_of16(elem, y));
        if (fy < fx) == want_min { y } else { x }
    };
    let mut mn = [words[0] & 0xffff, words[0] >> 16];
    let mut mx = mn;
    for &w in &words[1..] {
        for (h, v) in [w & 0xffff, w >> 16].into_iter().enumerate() {
            mn[h] = pick(mn[h], v, !largest, true);
            mx[h] = pick(mx[h], v, largest, false);
        }
    }
    let key = |o| key16_of_ordered(elem, o, largest);
    (key(mn[0]).min(key(mn[1])), key(mx[0]).max(key(mx[1])))
}

/// BUG (SharedCounterNoBarrier): `row_sum` through a shared counter with a plain
/// read-modify-write and no `__syncwarp()` between the reset, the updates and the read.
async fn shared_counter_sum(
    w: &mut Warp<'_>,
    at: u32,
    lane_cnt: &Lanes<u32>,
) -> Result<Lanes<u32>, SimError> {
    let s_cnt = Lanes::splat(at);
    let lane0 = w.lane_id().map(|l| l == 0);
    let saved = w.push_active(&lane0, "count_ge: if (lane == 0)")?;
    w.st_shared(&s_cnt, &Lanes::splat(0), "count_ge: s_cnt = 0").await?;
    w.pop_active(saved);
    let old = w.ld_shared(&s_cnt, "count_ge: s_cnt += c (read)").await?;
    w.st_shared(&s_cnt, &old.zip(lane_cnt, u32::wrapping_add), "count_ge: s_cnt += c (write)")
        .await?;
    w.ld_shared(&s_cnt, "count_ge: cnt = s_cnt").await
}

/// A row narrowed to its `n` candidates on one warp: candidate `r` is slot `r / 32` of lane
/// `r % 32` (`C` slots per lane; padding is key 0).
#[derive(Clone, Debug)]
pub(crate) struct CandRow {
    /// `keys[C]`.
    pub(crate) keys: Vec<Lanes<u32>>,
    /// M.
    pub(crate) m: u32,
    /// The candidates.
    pub(crate) n: u32,
}

impl CandRow {
    /// `CAP`: `32 C`; in the candidate buffer the indices start there.
    pub(crate) fn cap(&self) -> u32 {
        32 * self.keys.len() as u32
    }
}

impl Row for CandRow {
    /// Groups of 4 slots (128 candidates); groups past n hold only padding and are skipped.
    async fn count_ge_positive(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        t: u32,
    ) -> Result<u32, SimError> {
        let t = count_threshold(a, t);
        let mut c = Lanes::splat(0u32);
        for g in (0..self.keys.len()).step_by(4) {
            if g > 0 && 32 * g as u32 >= self.n {
                break; // warp-uniform
            }
            let mut bits = Lanes::splat(0u32);
            for (j, key) in self.keys[g..g + 4].iter().enumerate() {
                bits = bits.zip(key, |b, k| b | (u32::from(k >= t) << j));
            }
            c = c.zip(&bits, |c, b| c.wrapping_add(b.count_ones()));
        }
        if a.has(Mutant::CountWithoutRowSum) {
            return w.uniform(&c, "count_ge: cnt"); // BUG: the lane's own count
        }
        let sum = w.reduce_add_sync(FULL_MASK, &c, "count_ge: __reduce_add_sync(c)")?;
        w.uniform(&sum, "count_ge: cnt")
    }

    fn m(&self) -> u32 {
        self.m
    }

    fn narrow_cap(&self) -> u32 {
        0
    }
}

/// The block kernels' shared memory, in words: `s_partial[128]` (two halves of 32 slots for
/// the block sums, then the range's 64), `s_chunk[64]`, `s_stage[BLOCK_STAGE]`, then the
/// row's cached keys (`smem`, dynamic).
pub(crate) mod block_smem {
    use crate::rtopk::args::BLOCK_STAGE;

    /// `s_partial`.
    pub(crate) const PARTIAL: u32 = 0;
    /// `s_chunk`.
    pub(crate) const CHUNK: u32 = 128;
    /// `s_stage`.
    pub(crate) const STAGE: u32 = 192;
    /// `smem`: the cached keys.
    pub(crate) const KEYS: u32 = STAGE + BLOCK_STAGE as u32;
}

/// One block row: thread `t` keeps keys of elements `32 t .. 32 t + 31` in registers
/// (`keys`), so the registers hold the first `in_regs = min(M, 32 blockDim)`; shared memory
/// the next `cached`; the rest is re-keyed from the input on each pass.
#[derive(Clone, Debug)]
pub(crate) struct BlockRow<'x> {
    /// `keys[BLOCK_EPL]`.
    pub(crate) keys: Vec<Lanes<u32>>,
    /// The last count's slot mask (for `narrow_row`).
    pub(crate) ge_last: Vec<Lanes<u32>>,
    /// The input (`row` is `row_off ..`).
    pub(crate) x: &'x dyn crate::engine::global::Source,
    /// `row_id * M`.
    pub(crate) row_off: u64,
    /// M, `in_regs`, `cached`.
    pub(crate) m: u32,
    pub(crate) in_regs: u32,
    pub(crate) cached: u32,
    /// Which half of `s_partial` the next block sum uses.
    pub(crate) half: u32,
    /// `sign`.
    pub(crate) sign: f32,
    /// `NARROW_CAP`.
    pub(crate) cap: u32,
    /// The input's element type (`key_at` and the counts past the registers re-key it).
    pub(crate) elem: ElemType,
    /// `SKIPS` (the ragged units): threads whose slots all lie past the row skip the count's
    /// compares.
    pub(crate) skips: bool,
}

impl BlockRow<'_> {
    /// `key_at(i)`: element `i`'s key for the selection, from shared memory where it is
    /// there, else re-keyed from the input.
    pub(crate) async fn key_at(
        &self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        i: &Lanes<u32>,
    ) -> Result<Lanes<u32>, SimError> {
        let s = i.map(|i| i.wrapping_sub(self.in_regs)); // wraps for i < in_regs
        let cached = s.map(|s| s < self.cached);
        let mut key = Lanes::splat(0u32);
        let saved = w.push_active(&cached, "key_at: s < cached")?;
        let k = w.ld_shared(&s.map(|s| block_smem::KEYS + s), "key_at: s_keys[s]").await?;
        w.assign(&mut key, &k);
        w.pop_active(saved);
        let saved = w.push_active(&cached.not(), "key_at: else")?;
        let addr = i.map(|i| self.row_off.wrapping_add(u64::from(i)));
        let v = w.ld_input(self.x, &addr, "key_at: row[i]").await?;
        let k = v.map(|v| own_key(a, self.elem, v, self.sign));
        w.assign(&mut key, &k);
        w.pop_active(saved);
        Ok(key)
    }

    /// `block_sum`: one barrier per sum — consecutive sums use alternate halves of
    /// `s_partial[0..64]`, and every warp has read a half before any warp passes the next
    /// sum's barrier and reuses it.
    pub(crate) async fn block_sum(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        c: &Lanes<u32>,
    ) -> Result<u32, SimError> {
        let (warp, nwarps) = (w.warp_idx(), w.warps_per_block());
        let slots = block_smem::PARTIAL + 32 * self.half;
        if !a.has(Mutant::BlockSumOneHalf) {
            self.half ^= 1; // BUG (BlockSumOneHalf): always the same half
        }
        let c = w.reduce_add_sync(FULL_MASK, c, "block_sum: __reduce_add_sync(c)")?;
        let lane0 = w.lane_id().map(|l| l == 0);
        let saved = w.push_active(&lane0, "block_sum: if (lane == 0)")?;
        w.st_shared(&Lanes::splat(slots + warp), &c, "block_sum: slots[warp] = c").await?;
        w.pop_active(saved);
        if !a.has(Mutant::BlockSumMissingBarrier) {
            w.syncthreads("block_sum: __syncthreads()").await?;
        }
        let lane = w.lane_id();
        let reads = lane.map(|l| l < nwarps);
        let saved = w.push_active(&reads, "block_sum: lane < nwarps")?;
        let s = w.ld_shared(&lane.map(|l| slots + l), "block_sum: slots[lane]").await?;
        w.pop_active(saved);
        let v = Lanes::select(&reads, &s, &Lanes::splat(0));
        let sum = w.reduce_add_sync(FULL_MASK, &v, "block_sum: __reduce_add_sync(slots)")?;
        let sum = w.uniform(&sum, "block_sum: total")?;
        w.block_uniform(u64::from(sum), "block_sum: total")?;
        Ok(sum)
    }
}

impl BlockRow<'_> {
    /// `slots_counted`: each thread's register slots `>= t` (`t` already
    /// [`count_threshold`]'s), marked in `ge_last`, and how many. In the ragged twin a thread
    /// whose slots all lie past the row (a ragged row shorter than its block) skips the
    /// compares: its keys are 0 < t, so its mask is 0 either way.
    pub(crate) fn slots_counted(&mut self, w: &Warp<'_>, t: u32) -> Lanes<u32> {
        slots_ge(&self.keys, t, &mut self.ge_last);
        if self.skips {
            let inside = w.thread_idx().map(|i| BLOCK_EPL as u32 * i < self.in_regs);
            for g in self.ge_last.iter_mut() {
                *g = Lanes::select(&inside, g, &Lanes::splat(0));
            }
        }
        popc_words(&self.ge_last)
    }
}

impl Row for BlockRow<'_> {
    async fn count_ge_positive(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        t: u32,
    ) -> Result<u32, SimError> {
        let t = count_threshold(a, t);
        let c = self.slots_counted(w, t);
        let c = self.tail_counted(w, a, t, c).await?;
        self.block_sum(w, a, &c).await
    }

    async fn count_above_and_at_least(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        t: u32,
    ) -> Result<(u32, u32), SimError> {
        if self.m >= PAIRED_COUNT_LIMIT {
            return counted_twice(self, w, a, t).await; // block-uniform: two sums
        }
        let (t, t1) = (count_threshold(a, t), count_threshold(a, t + 1));
        let ge = self.slots_counted(w, t);
        let ge = self.tail_counted(w, a, t, ge).await?;
        let gt = self.slots_counted(w, t1);
        let gt = self.tail_counted(w, a, t1, gt).await?;
        let packed = ge.zip(&gt, |ge, gt| ge << 16 | gt);
        Ok(unpack_pair(self.block_sum(w, a, &packed).await?))
    }

    fn m(&self) -> u32 {
        self.m
    }

    fn narrow_cap(&self) -> u32 {
        self.cap
    }
}

impl BlockRow<'_> {
    /// `tail_counted`: `c` plus each thread's keys `>= t` past the registers (rows wider than
    /// them): shared memory's, then the rest re-keyed from the input.
    async fn tail_counted(
        &self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        t: u32,
        c: Lanes<u32>,
    ) -> Result<Lanes<u32>, SimError> {
        let mut c = c;
        if self.in_regs < self.m {
            // block-uniform: rows wider than the registers
            let tid = w.thread_idx();
            let bd = w.block_dim();
            let mut i = tid;
            let mut base = 0u32;
            while base < self.cached {
                let at = i.map(|i| i < self.cached);
                let saved = w.push_active(&at, "count_ge: i < cached")?;
                let key =
                    w.ld_shared(&i.map(|i| block_smem::KEYS + i), "count_ge: s_keys[i]").await?;
                let n = c.zip(&key, |c, k| c.wrapping_add(u32::from(k >= t)));
                w.assign(&mut c, &n);
                let next = i.map(|i| i + bd);
                w.assign(&mut i, &next);
                w.pop_active(saved);
                base += bd;
            }
            i = i.map(|i| i + self.in_regs);
            let mut base = self.in_regs + self.cached;
            while base < self.m {
                let at = i.map(|i| i < self.m);
                let saved = w.push_active(&at, "count_ge: i < m")?;
                let addr = i.map(|i| self.row_off.wrapping_add(u64::from(i)));
                let v = w.ld_input(self.x, &addr, "count_ge: row[i]").await?;
                let n = c.zip(&v, |c, v| {
                    c.wrapping_add(u32::from(own_key(a, self.elem, v, self.sign) >= t))
                });
                w.assign(&mut c, &n);
                let next = i.map(|i| i + bd);
                w.assign(&mut i, &next);
                w.pop_active(saved);
                base += bd;
            }
        }
        Ok(c)
    }
}

impl Slots for BlockRow<'_> {
    fn slots(&self) -> usize {
        self.keys.len()
    }

    fn slots_ge(&self, t: u32, ge: &mut [Lanes<u32>]) {
        slots_ge(&self.keys, t, ge);
    }

    fn slot_key(&self, j: usize) -> Lanes<u32> {
        self.keys[j]
    }
}

/// `block_prefix`: the block-wide exclusive prefix and the total of each thread's `own` —
/// a warp scan, one barrier, two reductions over the warps' totals in `slots`.
pub(crate) async fn block_prefix(
    w: &mut Warp<'_>,
    own: &Lanes<u32>,
    slots: u32,
) -> Result<(Lanes<u32>, u32), SimError> {
    let lane = w.lane_id();
    let (warp, nwarps) = (w.warp_idx(), w.warps_per_block());
    let mut incl = *own;
    let mut d = 1u32;
    while d < 32 {
        let up = w.shfl_up_sync(FULL_MASK, &incl, d, 32, "block_prefix: shfl_up(incl, d)")?;
        let take = lane.map(|l| l >= d);
        incl = Lanes::select(&take, &incl.zip(&up, u32::wrapping_add), &incl);
        d <<= 1;
    }
    let lane31 = lane.map(|l| l == 31);
    let saved = w.push_active(&lane31, "block_prefix: if (lane == 31)")?;
    w.st_shared(&Lanes::splat(slots + warp), &incl, "block_prefix: slots[warp] = incl").await?;
    w.pop_active(saved);
    w.syncthreads("block_prefix: __syncthreads()").await?;
    let reads = lane.map(|l| l < nwarps);
    let saved = w.push_active(&reads, "block_prefix: lane < nwarps")?;
    let s = w.ld_shared(&lane.map(|l| slots + l), "block_prefix: slots[lane]").await?;
    w.pop_active(saved);
    let wv = Lanes::select(&reads, &s, &Lanes::splat(0));
    let below = lane.map(|l| l < warp);
    let before_warps = Lanes::select(&below, &wv, &Lanes::splat(0));
    let before = w.reduce_add_sync(FULL_MASK, &before_warps, "block_prefix: before")?;
    let total = w.reduce_add_sync(FULL_MASK, &wv, "block_prefix: total")?;
    let total = w.uniform(&total, "block_prefix: total")?;
    w.block_uniform(u64::from(total), "block_prefix: total")?;
    let before = before.zip(&incl, u32::wrapping_add).zip(own, u32::wrapping_sub);
    Ok((before, total))
}

#[cfg(test)]
mod tests {
    use topk_ref::{Bisect, Mode};

    use super::*;
    use crate::rtopk::order::neg_inf16;

    fn args(mode: Mode, mutant: Option<Mutant>) -> KernelArgs {
        KernelArgs { n: 1, m: 1, k: 1, mode, bisect: Bisect::exact(), mutant }
    }

    /// `bits` (at most 32 EPL) as a packed row on 32 lanes, as `load_row` lays them out:
    /// ordered bits, two per word, `NEG_INF16` in the slots past the row.
    fn packed(elem: ElemType, bits: &[u32], epl: usize, mode: Mode) -> PackedRow {
        let whole = RowLanes { mask: FULL_MASK, width: 32 };
        let shape = (bits.len() as u32, whole, 0);
        let mut row = PackedRow::new(epl, shape, &args(mode, None), elem);
        let flip = if mode == Mode::Largest { 0 } else { 0x8000 };
        let slot = |l: usize, j: usize| bits.get(l * epl + j).map_or(neg_inf16(elem), |b| b ^ flip);
        for (q, word) in row.words.iter_mut().enumerate() {
            *word = Lanes::from_fn(|l| {
                let hi = if 2 * q + 1 < epl { slot(l, 2 * q + 1) } else { neg_inf16(elem) };
                slot(l, 2 * q) | hi << 16
            });
        }
        row.inside = Lanes::from_fn(|l| (bits.len().saturating_sub(l * epl)).min(epl) as u32);
        row
    }

    /// Every 16-bit pattern, shuffled.
    fn every_pattern() -> Vec<u32> {
        let mut bits: Vec<u32> = (0..=0xffff).collect();
        let mut s = 16u64;
        for i in (1..bits.len()).rev() {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            bits.swap(i, ((s >> 33) % (i as u64 + 1)) as usize);
        }
        bits
    }

    /// The own-key thresholds at the edges of the count's three cases (-inf's key and +inf's,
    /// each ±1), the zeros' (0x7fff: -0.0, 0x8000), the largest, and random keys.
    fn thresholds(elem: ElemType) -> Vec<u32> {
        let (neg, pos) = (key16_neg_inf(elem), key16_pos_inf(elem));
        let mut t = vec![1, neg - 1, neg, neg + 1, 0x7fff, 0x8000, 0x8001, pos - 1, pos, pos + 1];
        t.extend([0xfffe, 0xffff]);
        let mut s = 3u64;
        t.extend((0..60).map(|_| {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (s >> 48) as u32 | 1
        }));
        t
    }

    /// A packed row's counts (`lane_count_ge`), masks (`slots_ge`, through `words_ge`'s bit
    /// placement on rows of three mask words) and slot keys are those of
    /// the elements' own keys, for every 16-bit pattern of both types in both modes, at the
    /// edges of the count's three cases and at random thresholds; `slots_ge(0)` takes every
    /// slot inside the row, NaN too.
    #[test]
    fn packed_counts_are_the_own_keys_counts_at_every_threshold() {
        let all = every_pattern();
        for elem in [ElemType::F16, ElemType::Bf16] {
            for mode in [Mode::Largest, Mode::Smallest] {
                let a = args(mode, None);
                for (epl, chunk) in [(95, 32 * 95 - 7), (96, 32 * 96)] {
                    for bits in all.chunks(chunk).take(4).chain(all.chunks(chunk).last()) {
                        let row = packed(elem, bits, epl, mode);
                        let key = |i: usize| reference_key(elem, bits[i], mode);
                        let mut ts = thresholds(elem);
                        ts.extend((0..bits.len()).step_by(97).flat_map(|i| {
                            let k = key(i);
                            [k, k + 1, k.saturating_sub(1)]
                        }));
                        let mut ge = vec![Lanes::splat(0u32); mask_words(epl)];
                        for t in ts.into_iter().filter(|&t| (1..=0xffff).contains(&t)) {
                            let got = row.lane_count_ge(&a, t);
                            row.slots_ge(t, &mut ge);
                            for l in 0..32 {
                                let slots = (l * epl..(l * epl + epl).min(bits.len())).enumerate();
                                let (mut want, mut mask) = (0, vec![0u32; mask_words(epl)]);
                                for (j, i) in slots {
                                    if key(i) >= t {
                                        want += 1;
                                        mask[j / 32] |= 1 << (j % 32);
                                    }
                                }
                                let what = format!("{elem:?} {mode:?} lane {l} t {t:#06x}");
                                assert_eq!(got.lane(l), want, "{what}");
                                let masks: Vec<u32> = ge.iter().map(|g| g.lane(l)).collect();
                                assert_eq!(masks, mask, "{what}");
                            }
                        }
                        row.slots_ge(0, &mut ge);
                        let inside: u32 = ge.iter().map(popc_sum).sum();
                        assert_eq!(inside as usize, bits.len(), "slots_ge(0): every slot");
                        for j in 0..epl {
                            let k = row.slot_key(j);
                            for l in (0..32).filter(|l| l * epl + j < bits.len()) {
                                assert_eq!(k.lane(l), key(l * epl + j));
                            }
                        }
                    }
                }
            }
        }
    }

    fn popc_sum(g: &Lanes<u32>) -> u32 {
        g.values().iter().map(|w| w.count_ones()).sum()
    }

    /// The packed min / max of a lane whose slots are all inside the row are the min and max
    /// of its slots' own keys (NaN at its mode's end).
    #[test]
    fn range_full_words_is_the_slots_key_range() {
        let all = every_pattern();
        for elem in [ElemType::F16, ElemType::Bf16] {
            for (largest, mode) in [(true, Mode::Largest), (false, Mode::Smallest)] {
                let flip = if largest { 0 } else { 0x8000_8000 };
                for lane in all.chunks(8) {
                    let words: Vec<u32> =
                        lane.chunks(2).map(|p| (p[0] | p[1] << 16) ^ flip).collect();
                    let keys = lane.iter().map(|&b| reference_key(elem, b, mode));
                    let want = keys.fold((u32::MAX, 0), |(lo, hi), k| (lo.min(k), hi.max(k)));
                    assert_eq!(range_full_words(elem, &words, largest), want, "{lane:x?}");
                }
            }
        }
    }

    /// A lane's half masks summed mod 2^32, read back as the number of halves set: every
    /// split of up to 192 low and 192 high halves (the widest 16-bit lane holds 96 words), and
    /// up to 2^15 in each half.
    #[test]
    fn halves_set_counts_the_masks_summed() {
        let sum = |lo: u32, hi: u32| {
            let masks = (0..lo).map(|_| 0xffffu32).chain((0..hi).map(|_| 0xffff_0000));
            masks.fold(0u32, u32::wrapping_add)
        };
        for lo in 0..=192 {
            for hi in 0..=192 {
                assert_eq!(halves_set(sum(lo, hi)), lo + hi, "{lo} low, {hi} high");
            }
        }
        assert_eq!(halves_set(sum(1 << 15, (1 << 15) - 1)), (1 << 16) - 1);
        assert_eq!(halves_set(sum(0, 1 << 15)), 1 << 15);
    }

    /// `nan16-counted-smallest` counts a NaN in smallest mode (the count check catches it).
    #[test]
    fn the_nan_mutant_miscounts() {
        let nan = [0x7fc0u32, 0x3c00]; // bf16 NaN, 0.0078125
        let row = packed(ElemType::Bf16, &nan, 2, Mode::Smallest);
        let t = 0x4000; // ordered -1.99: counts the values up to 1.99
        assert_eq!(row.lane_count_ge(&args(Mode::Smallest, None), t).lane(0), 1);
        let bug = args(Mode::Smallest, Some(Mutant::Nan16CountedSmallest));
        assert_eq!(row.lane_count_ge(&bug, t).lane(0), 2);
    }
}
