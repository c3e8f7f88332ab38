//! Stage 3, `select_topk` (the CUDA kernel's `select.cuh`): the cut the search leaves
//! (`cut_of`); for register rows one scan of the lanes' packed strong and band counts that
//! places every lane's consecutive elements (`classify`, `row_scan`, `taken`), staged through
//! shared memory and written by consecutive lanes (`emit_staged`, `select_topk_lanes`); for a
//! narrowed row's candidates and a block row's elements past its registers, chunks of 32 with
//! ballots (`select_chunk`, `select_candidates`), each result written by `write_result`.
//! Every path takes the same elements in the same order: every strong one, then the first
//! `band_left` band ones by index (docs/kernel.md, stage 3).

use crate::engine::error::SimError;
use crate::engine::global::Source;
use crate::engine::lanes::{FULL_MASK, Lanes, lanes_below};
use crate::engine::warp::{BufId, Warp};
use crate::rtopk::args::{KernelArgs, SearchExit};
use crate::rtopk::mutant::Mutant;
use crate::rtopk::order::{ElemType, int_of_key, int_word, key_keeps_bits, value_of_key};
use crate::rtopk::record::{TraceChunk, Tracer};
use crate::rtopk::rows::{CandRow, Row, RowLanes, Slots, count_ge, row_scan};
use crate::rtopk::search::Search;

/// `strong_above` when no element is strong.
pub(crate) const NO_STRONG: u32 = u32::MAX;

/// What the selection takes: every key above `strong_above`, then the first
/// `k - strong_count` by index of the band `band_lo ..= strong_above` (the CUDA kernel's
/// `struct Cut`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cut {
    pub(crate) strong_above: u32,
    pub(crate) band_lo: u32,
    pub(crate) strong_count: u32,
}

impl Cut {
    /// How many elements the cut selects from a row of at least k: k, but for a cut without a
    /// band (`band_lo > strong_above`: a hit's, or a floor's, floor.rs) its strong ones.
    pub(crate) fn selects(&self, k: u32) -> u32 {
        if self.band_lo > self.strong_above { self.strong_count } else { k }
    }
}

/// `cut_of`: docs/kernel.md's table, stage 3. Counts `count_ge(hi_key)` once when `hi_key`
/// was never tested (not an iteration).
pub(crate) async fn cut_of<R: Row>(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &mut R,
    s: &Search,
) -> Result<Cut, SimError> {
    let k = a.k as u32;
    match s.search_exit() {
        SearchExit::MaxIter => {
            Ok(Cut { strong_above: NO_STRONG, band_lo: s.lo_key, strong_count: 0 })
        }
        SearchExit::Hit => {
            Ok(Cut { strong_above: s.hi_key.wrapping_sub(1), band_lo: s.hi_key, strong_count: k })
        }
        SearchExit::Converged | SearchExit::Precision | SearchExit::Recall => {
            let at_hi = if s.has_count_at_hi {
                s.count_at_hi
            } else {
                count_ge(row, w, a, s.hi_key).await?
            };
            if at_hi >= k {
                // Ties at the maximum fill k: the first k of them by index.
                Ok(Cut { strong_above: NO_STRONG, band_lo: s.hi_key, strong_count: 0 })
            } else {
                Ok(Cut {
                    strong_above: s.hi_key.wrapping_sub(1),
                    band_lo: s.lo_key,
                    strong_count: at_hi,
                })
            }
        }
    }
}

/// Where one row's results go: the input row (`row_in = x + row_off`), and the outputs
/// `out_val + out_off`, `out_idx + out_off` (the CUDA kernel's `opaque` row pointers).
#[derive(Clone, Copy)]
pub(crate) struct RowOut<'x> {
    pub(crate) x: &'x dyn Source,
    pub(crate) row_off: Lanes<u64>,
    pub(crate) out_val: BufId,
    pub(crate) out_idx: BufId,
    pub(crate) out_off: Lanes<u64>,
    pub(crate) sign: f32,
    /// The element type of the input and of `out_val`.
    pub(crate) elem: ElemType,
}

/// `result_value`: the value of result `(i, key)` of the row — the input's bits, from its
/// key where the key determines them, re-read from the input where it cannot (±0, NaN); a
/// 16-bit value always re-read (one load of an element the row just read). As words of the
/// element's width.
pub(crate) async fn result_value(
    w: &mut Warp<'_>,
    out: &RowOut<'_>,
    i: &Lanes<u32>,
    key: &Lanes<u32>,
) -> Result<Lanes<u32>, SimError> {
    let (elem, sign) = (out.elem, out.sign);
    let mut val = if elem.integer() {
        key.map(|k| int_word(elem, int_of_key(k, sign)))
    } else {
        key.map(|k| value_of_key(k, sign).to_bits())
    };
    let from_key = |k| elem.integer() || elem == ElemType::F32 && key_keeps_bits(k);
    let reread = key.map(|k| !from_key(k));
    let saved = w.push_active(&reread, "result_value: !key_keeps_bits(key)")?;
    let src = w.add_u64(&out.row_off, &i.map(u64::from), "result_value: row_in + i")?;
    let x = w.ld_input(out.x, &src, "result_value: row_in[i]").await?;
    w.assign(&mut val, &x);
    w.pop_active(saved);
    check_input_bits(
        w,
        out.x,
        &src,
        &val,
        "result_value: out_val is the input's bits (docs/contract.md §1)",
    )?;
    Ok(val)
}

/// `write_result`: result `pos` of the row is element `i` with its value (`result_value`).
pub(crate) async fn write_result(
    w: &mut Warp<'_>,
    out: &RowOut<'_>,
    pos: &Lanes<u32>,
    i: &Lanes<u32>,
    key: &Lanes<u32>,
) -> Result<(), SimError> {
    let at = w.add_u64(&out.out_off, &pos.map(u64::from), "write_result: out + pos")?;
    w.st_global(out.out_idx, &at, i, "write_result: out_idx[pos] = i").await?;
    let val = result_value(w, out, i, key).await?;
    w.st_global(out.out_val, &at, &val, "write_result: out_val[pos]").await
}

/// The simulator's contract check on a result's value: the bits of the input element it
/// names (docs/contract.md §1: -0.0 and NaN payloads included), in the active lanes whose
/// address is in the input. Not a simulated access: it reads the input host-side, and only
/// the active lanes' elements (an inactive lane's address may lie past a ragged row's length,
/// whose elements no step may read: the ragged steps' check of their reads counts these too).
pub(crate) fn check_input_bits(
    w: &mut Warp<'_>,
    x: &dyn Source,
    src: &Lanes<u64>,
    val: &Lanes<u32>,
    label: &'static str,
) -> Result<(), SimError> {
    if !w.checks() {
        return Ok(());
    }
    let (len, active) = (x.len(), w.active_mask());
    let ok = Lanes::from_fn(|l| {
        let a = src.lane(l);
        (active >> l) & 1 == 0 || a >= len || x.word(a) == val.lane(l)
    });
    w.check(&ok, label)
}

/// What one `select_chunk` did (its ballots, for the trace and the invariants).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChunkDone {
    pub(crate) selected: u32,
    pub(crate) band_taken: u32,
    pub(crate) strong_mask: u32,
    pub(crate) band_mask: u32,
    pub(crate) sel_mask: u32,
}

/// `select_chunk`: selects one chunk of 32 consecutive elements (or candidates) with one warp
/// — every strong one, and the band ones among the first `band_left` — writing them from
/// output position `written` on.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn select_chunk(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    key: &Lanes<u32>,
    valid: &Lanes<bool>,
    i: &Lanes<u32>,
    c: &Cut,
    band_left: u32,
    written: u32,
    out: &RowOut<'_>,
) -> Result<ChunkDone, SimError> {
    let k = a.k as u32;
    if a.has(Mutant::EarlyExitBeforeBallot) {
        // BUG: lanes past the row leave before the ballots.
        w.exit_where(&valid.not(), "select_chunk: if (!valid) return")?;
    }
    let lanemask_lt = w.lanemask_lt();
    let strong = valid.and(&key.map(|key| key > c.strong_above));
    let band = valid.and(&strong.not()).and(&key.map(|key| key >= c.band_lo));
    // BUG (BallotPartialMask): the ballots name only the lanes holding an element.
    let mask = if a.has(Mutant::BallotPartialMask) { valid.mask() } else { FULL_MASK };
    let band_mask = w.ballot_sync(mask, &band, "select_chunk: ballot(band)")?;
    let band_rank = band_mask.zip(&lanemask_lt, |m, lt| (m & lt).count_ones());
    let take_band = if a.has(Mutant::CutOffByOne) {
        band.and(&band_rank.map(|r| r <= band_left)) // BUG: `<=`
    } else {
        band.and(&band_rank.map(|r| r < band_left))
    };
    let selected = strong.or(&take_band);
    let sel_mask = w.ballot_sync(mask, &selected, "select_chunk: ballot(selected)")?;
    let before = if a.has(Mutant::PrefixMaskShift32) {
        // BUG: an inclusive mask `(1 << (lane + 1)) - 1` — a shift by 32 in lane 31.
        let next = w.lane_id().map(|l| l + 1);
        let le = w.shl(&Lanes::splat(1), &next, "select_chunk: 1 << (lane + 1)")?;
        let upto = sel_mask.zip(&le.map(|m| m.wrapping_sub(1)), |m, le| (m & le).count_ones());
        upto.zip(&selected, |u, s| u.wrapping_sub(u32::from(s)))
    } else {
        sel_mask.zip(&lanemask_lt, |m, lt| (m & lt).count_ones())
    };
    let pos = before.map(|b| written.wrapping_add(b));
    let keep = selected.and(&pos.map(|p| p < k));
    let saved = w.push_active(&keep, "select_chunk: if (selected && pos < k)")?;
    write_result(w, out, &pos, i, key).await?;
    w.pop_active(saved);
    let band_mask = w.uniform(&band_mask, "select_chunk: band_mask")?;
    let sel_mask = w.uniform(&sel_mask, "select_chunk: sel_mask")?;
    let band_taken = band_mask.count_ones().min(band_left);
    // Invariant: the chunk selects its strong elements and the band elements it takes.
    let strong_mask = strong.mask() & w.active_mask();
    w.check_that(
        sel_mask.count_ones() == strong_mask.count_ones() + band_taken,
        "select_chunk: selected = strong + band taken",
    )?;
    Ok(ChunkDone { selected: sel_mask.count_ones(), band_taken, strong_mask, band_mask, sel_mask })
}

/// `classify`: a thread's N slots hold elements `first ..` (padding past M has key 0); bit
/// `j % 32` of word `j / 32` of `strong` / `band`: element `first + j` is strong / in the
/// band. Returns the thread's strong (low 16 bits) and band (high 16 bits) counts. One
/// compare per slot for each set the cut can fill (`row.slots_ge`).
pub(crate) fn classify<S: Slots>(
    row: &S,
    first: &Lanes<u32>,
    m: u32,
    c: &Cut,
    strong: &mut [Lanes<u32>],
    band: &mut [Lanes<u32>],
) -> Lanes<u32> {
    let any_strong = c.strong_above != NO_STRONG;
    let any_band = c.band_lo <= c.strong_above;
    if any_strong {
        row.slots_ge(c.strong_above + 1, strong);
    }
    if any_band {
        row.slots_ge(c.band_lo, band);
    }
    let inside = first.map(|f| m.saturating_sub(f)); // slots inside the row
    let mut counts = Lanes::splat(0u32);
    for (wi, (s, b)) in strong.iter_mut().zip(band.iter_mut()).enumerate() {
        let base = 32 * wi as u32;
        let row_bits = inside.map(|n| lanes_below(n.saturating_sub(base) as usize));
        if !any_strong {
            *s = Lanes::splat(0);
        }
        *b = if any_band {
            b.zip(s, |b, s| b & !s).zip(&row_bits, |b, r| b & r)
        } else {
            Lanes::splat(0)
        };
        let c = s.zip(b, |s, b| s.count_ones() | (b.count_ones() << 16));
        counts = counts.zip(&c, u32::wrapping_add);
    }
    counts
}

/// `lowest_bits`: the lowest `n` set bits of `mask`.
pub(crate) fn lowest_bits(mask: u32, n: u32) -> u32 {
    let mut mask = mask;
    let mut extra = mask.count_ones().saturating_sub(n);
    while extra > 0 {
        mask &= !(0x8000_0000u32 >> mask.leading_zeros()); // drop the highest
        extra -= 1;
    }
    mask
}

/// `taken`: which of a thread's strong and band elements are taken (into `take`), and the
/// output position of its first: every strong one, and the band ones among the row's first
/// `band_left` by index. `before`: the strong (low 16 bits) and band (high 16 bits) counts
/// of the elements before the thread's first.
pub(crate) fn taken(
    a: &KernelArgs,
    strong: &[Lanes<u32>],
    band: &[Lanes<u32>],
    before: &Lanes<u32>,
    band_left: u32,
    take: &mut [Lanes<u32>],
) -> Lanes<u32> {
    let extra = u32::from(a.has(Mutant::CutOffByOne)); // BUG: one band element too many
    let mut budget = before.map(|b| band_left.saturating_sub(b >> 16).wrapping_add(extra));
    for ((t, s), b) in take.iter_mut().zip(strong).zip(band) {
        let low = b.zip(&budget, lowest_bits);
        budget = budget.zip(&low, |n, l| n.wrapping_sub(l.count_ones()));
        *t = s.zip(&low, |s, l| s | l);
    }
    before.map(|b| (b & 0xffff).wrapping_add((b >> 16).min(band_left)))
}

/// The barrier `emit_staged` uses over the row's threads.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Sync {
    /// `__syncwarp(lanes)`: a warp row's lanes.
    Warp(u32),
    /// `__syncthreads()`: a block row's threads.
    Block,
}

async fn sync(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    s: Sync,
    label: &'static str,
) -> Result<(), SimError> {
    match s {
        Sync::Warp(lanes) => {
            // BUG (EmitFullWarpSync): the whole warp for a part-warp row.
            let mask = if a.has(Mutant::EmitFullWarpSync) { FULL_MASK } else { lanes };
            w.syncwarp(mask, label).await
        }
        Sync::Block => w.syncthreads(label).await,
    }
}

/// A row's stage: `cap` words of shared memory from `base`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stage {
    pub(crate) base: u32,
    pub(crate) cap: u32,
}

/// `emit_staged`: one thread's selected elements (bit `j % 32` of `taken[j / 32]`: element
/// `first + j`), at output positions from `pos` on in index order, staged chunk by chunk and
/// written out with consecutive threads on consecutive results, each value re-read from the
/// input. `total`: the row's results; `t` of `threads`: the thread's place among the row's.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn emit_staged(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    taken: &[Lanes<u32>],
    pos: &Lanes<u32>,
    total: u32,
    first: &Lanes<u32>,
    stage: Stage,
    t: &Lanes<u32>,
    threads: u32,
    how: Sync,
    out: &RowOut<'_>,
) -> Result<(), SimError> {
    let mut take = taken.to_vec();
    let mut pos = *pos;
    let mut c0 = 0u32;
    while c0 < total {
        let end = (c0 + stage.cap).min(total);
        for (wi, tw) in take.iter_mut().enumerate() {
            loop {
                let more = tw.zip(&pos, |t, p| t != 0 && p < end);
                if more.mask() & w.active_mask() == 0 {
                    break;
                }
                let saved = w.push_active(&more, "emit_staged: take && pos < end")?;
                let at = pos.map(|p| stage.base.wrapping_add(p.wrapping_sub(c0)));
                let i = tw.zip(first, |t, f| f.wrapping_add(32 * wi as u32 + t.trailing_zeros()));
                w.st_shared(&at, &i, "emit_staged: stage[pos - c0] = i").await?;
                let next = tw.map(|t| t & t.wrapping_sub(1));
                w.assign(tw, &next);
                let p = pos.map(|p| p.wrapping_add(1));
                w.assign(&mut pos, &p);
                w.pop_active(saved);
            }
        }
        let last = c0 + stage.cap >= total;
        if !(a.has(Mutant::MissingSyncwarpInEmit) && matches!(how, Sync::Warp(_))) {
            sync(w, a, how, "emit_staged: sync() after staging").await?;
        }
        let mut r = t.map(|t| c0 + t);
        let mut base = c0;
        while base < end {
            let inside = r.map(|r| r < end);
            let saved = w.push_active(&inside, "emit_staged: r < end")?;
            let at = r.map(|r| stage.base.wrapping_add(r.wrapping_sub(c0)));
            let i = w.ld_shared(&at, "emit_staged: i = stage[r - c0]").await?;
            let at = w.add_u64(&out.out_off, &r.map(u64::from), "emit_staged: out + r")?;
            w.st_global(out.out_idx, &at, &i, "emit_staged: out_idx[r] = i").await?;
            let src = w.add_u64(&out.row_off, &i.map(u64::from), "emit_staged: row_in + i")?;
            let x = w.ld_input(out.x, &src, "emit_staged: row_in[i]").await?;
            w.st_global(out.out_val, &at, &x, "emit_staged: out_val[r] = row_in[i]").await?;
            let next = r.map(|r| r + threads);
            w.assign(&mut r, &next);
            w.pop_active(saved);
            base += threads;
        }
        if !(last && a.has(Mutant::SkipLastEmitSync)) {
            sync(w, a, how, "emit_staged: sync() before the stage is reused").await?; // the next chunk reuses the stage
        }
        c0 += stage.cap;
    }
    // Invariant: every element taken was staged and written.
    let left = take.iter().fold(Lanes::splat(0u32), |acc, t| acc.zip(t, |a, t| a | t));
    w.check(&left.map(|l| l == 0), "emit_staged: every taken element is written")
}

/// `select_topk_lanes`: stage 3 for one row's lanes — one scan of the lanes' packed strong and
/// band counts places every lane's elements (lane order is index order), then
/// `emit_staged`. `sub`: each lane's place among the row's; `first`: its first element.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn select_topk_lanes<S: Slots>(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &S,
    lanes: RowLanes,
    c: &Cut,
    sub: &Lanes<u32>,
    first: &Lanes<u32>,
    stage: Stage,
    out: &RowOut<'_>,
    tr: Tracer<'_>,
) -> Result<(), SimError> {
    let k = a.k as u32;
    let words = row.slots().div_ceil(32);
    let (mut strong, mut band) = (vec![Lanes::splat(0u32); words], vec![Lanes::splat(0u32); words]);
    let own = classify(row, first, a.m as u32, c, &mut strong, &mut band);
    let incl = row_scan(w, a, lanes, sub, own)?;
    // BUG (BroadcastFromWrongLane): the row's first lane, whose scan holds only its own.
    let src = if a.has(Mutant::BroadcastFromWrongLane) { 0 } else { lanes.width - 1 };
    let all =
        w.shfl_sync(lanes.mask, &incl, src, lanes.width, "select_topk_lanes: all = shfl(incl)")?;
    let all = w.uniform(&all, "select_topk_lanes: all")?;
    let band_left = k.wrapping_sub(c.strong_count);
    let total = k.min((all & 0xffff) + (all >> 16).min(band_left));
    w.check_that((all & 0xffff) == c.strong_count, "select: strong elements = strong_count")?;
    w.check_that(total == c.selects(k), "select: the cut selects k elements (a floor's, n)")?;
    let mut take = vec![Lanes::splat(0u32); words];
    let before = incl.zip(&own, u32::wrapping_sub);
    let pos = taken(a, &strong, &band, &before, band_left, &mut take);
    if tr.on() {
        let lanes = w.group_lanes();
        trace_lanes(tr, lanes, row.slots(), first, a.m, band_left, &strong, &band, &take);
    }
    let how = Sync::Warp(lanes.mask);
    emit_staged(w, a, &take, &pos, total, first, stage, sub, lanes.width, how, out).await
}

/// The trace's chunks of 32 elements from the strong, band and taken masks of the row's
/// `lanes`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn trace_lanes(
    tr: Tracer<'_>,
    lanes: u32,
    slots: usize,
    first: &Lanes<u32>,
    m: usize,
    band_left: u32,
    strong: &[Lanes<u32>],
    band: &[Lanes<u32>],
    take: &[Lanes<u32>],
) {
    let mut flags = vec![(false, false, false); m];
    for l in crate::engine::lanes_of(lanes) {
        for j in 0..slots {
            let e = first.lane(l) as usize + j;
            let bit = |v: &[Lanes<u32>]| v[j / 32].lane(l) >> (j % 32) & 1 == 1;
            if e < m {
                flags[e] = (bit(strong), bit(band), bit(take));
            }
        }
    }
    trace_flags(tr, &flags, band_left, 0);
}

/// The trace's chunks of 32 from per-element (strong, band, taken) flags.
pub(crate) fn trace_flags(
    tr: Tracer<'_>,
    flags: &[(bool, bool, bool)],
    band_left: u32,
    written: u32,
) {
    let (mut band_left, mut written) = (band_left, written);
    for (ci, chunk) in flags.chunks(32).enumerate() {
        let mask = |f: fn(&(bool, bool, bool)) -> bool| {
            chunk.iter().enumerate().fold(0u32, |m, (l, x)| m | u32::from(f(x)) << l)
        };
        let (strong, band, sel) = (mask(|x| x.0), mask(|x| x.1), mask(|x| x.2));
        tr.with(|r| {
            r.chunk(TraceChunk {
                base: 32 * ci,
                valid: lanes_below(chunk.len()),
                strong_mask: strong,
                band_mask: band,
                sel_mask: sel,
                band_left_before: band_left,
                written_before: written,
            })
        });
        band_left -= band.count_ones().min(band_left);
        written += sel.count_ones();
    }
}

/// `select_candidates`: stage 3 over a narrowed row's candidates — the chunks of 32 of
/// docs/kernel.md over the candidates (index order) instead of the row. `cand`: the
/// candidate buffer (keys, then their indices from `CAP` on).
pub(crate) async fn select_candidates(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &CandRow,
    c: &Cut,
    cand: u32,
    out: &RowOut<'_>,
    tr: Tracer<'_>,
) -> Result<(), SimError> {
    let k = a.k as u32;
    let lane = w.lane_id();
    let (mut written, mut band_left) = (0u32, k.wrapping_sub(c.strong_count));
    for (q, key) in row.keys.iter().enumerate() {
        let r = lane.map(|l| l + 32 * q as u32);
        let valid = r.map(|r| r < row.n);
        let mut i = Lanes::splat(0u32);
        let saved = w.push_active(&valid, "select_candidates: r < n")?;
        let idx = w
            .ld_shared(&r.map(|r| cand + row.cap() + r), "select_candidates: i = cand[CAP + r]")
            .await?;
        w.assign(&mut i, &idx);
        w.pop_active(saved);
        let d = select_chunk(w, a, key, &valid, &i, c, band_left, written, out).await?;
        tr.with(|rec| {
            rec.chunk(TraceChunk {
                base: 32 * q,
                valid: valid.mask(),
                strong_mask: d.strong_mask,
                band_mask: d.band_mask,
                sel_mask: d.sel_mask,
                band_left_before: band_left,
                written_before: written,
            })
        });
        written = written.wrapping_add(d.selected);
        band_left = band_left.wrapping_sub(d.band_taken);
        if written >= k || 32 * (q as u32 + 1) >= row.n {
            break; // warp-uniform
        }
    }
    w.check_that(written == k, "select: the cut selects k elements")
}
