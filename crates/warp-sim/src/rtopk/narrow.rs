//! Stage 2's narrowing (the CUDA kernel's `narrow.cuh`, docs/kernel.md "Narrowing"): in exact
//! mode, once a value-phase count at the new `lo_key` finds `k < n <= cap` keys, every later
//! threshold is above `lo_key`, so those keys are all that later counts count and all that the
//! cut can select. `copy_candidates` puts them and their indices in a candidate buffer in
//! index order, `take_candidates` gives them back C per lane ([`CandRow`]), and
//! `finish_candidates` runs the rest of the search and the selection over them. A 16-bit row
//! keeps no masks of its counts: its `narrow_row` makes them again at `lo_key`, and copies its
//! candidates' own 16-bit keys (`slot_key`).

use crate::engine::error::SimError;
use crate::engine::lanes::{FULL_MASK, Lanes};
use crate::engine::warp::Warp;
use crate::rtopk::args::{CAND_CAP, KernelArgs};
use crate::rtopk::mutant::Mutant;
use crate::rtopk::order::ElemType;
use crate::rtopk::record::{TraceCut, Tracer};
use crate::rtopk::rows::{
    CandRow, PackedRow, RowLanes, Slots, WarpRow, mask_words, popc_words, row_scan,
};
use crate::rtopk::search::{Search, finish_exact};
use crate::rtopk::select::{RowOut, cut_of, select_candidates};

/// `copy_candidates`: a thread's candidates (the slots `ge` marks, elements `first + j`) —
/// their keys (`slot_key`) and indices — to `cand[at ..]` and `cand[cap + at ..]`, in index
/// order.
pub(crate) async fn copy_candidates<S: Slots>(
    w: &mut Warp<'_>,
    row: &S,
    ge: &[Lanes<u32>],
    first: &Lanes<u32>,
    at: &Lanes<u32>,
    cap: u32,
) -> Result<(), SimError> {
    let mut at = *at;
    for j in 0..row.slots() {
        let bit = ge[j / 32].map(|g| g >> (j % 32) & 1 == 1);
        let saved = w.push_active(&bit, "copy_candidates: ge bit j")?;
        let key = row.slot_key(j);
        w.st_shared(&at, &key, "copy_candidates: cand[at] = slot_key(j)").await?;
        let i = first.map(|f| f + j as u32);
        w.st_shared(&at.map(|a| a.wrapping_add(cap)), &i, "copy_candidates: cand[cap + at] = i")
            .await?;
        let next = at.map(|a| a.wrapping_add(1));
        w.assign(&mut at, &next);
        w.pop_active(saved);
    }
    Ok(())
}

/// `take_candidates`: the `n` candidates back from `cand`, `c` per lane (candidate `r`: slot
/// `r / 32` of lane `r % 32`).
pub(crate) async fn take_candidates(
    w: &mut Warp<'_>,
    cand: u32,
    n: u32,
    m: u32,
    c: usize,
) -> Result<CandRow, SimError> {
    let lane = w.lane_id();
    let mut keys = Vec::with_capacity(c);
    for q in 0..c as u32 {
        let r = lane.map(|l| l + 32 * q);
        let inside = r.map(|r| r < n);
        let mut key = Lanes::splat(0u32);
        let saved = w.push_active(&inside, "take_candidates: r < n")?;
        let k = w.ld_shared(&r.map(|r| cand + r), "take_candidates: cand[r]").await?;
        w.assign(&mut key, &k);
        w.pop_active(saved);
        keys.push(key);
    }
    Ok(CandRow { keys, m, n })
}

/// `copy_and_take`: a whole-warp row's candidates (the slots `ge` marks, `n` in all) and their
/// indices to the row's share of the stage in index order (one scan of the lanes' counts
/// places them), `__syncwarp()`, and the keys back four per lane.
pub(crate) async fn copy_and_take<S: Slots>(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    (row, m): (&S, u32),
    ge: &[Lanes<u32>],
    n: u32,
    cand: u32,
) -> Result<CandRow, SimError> {
    let lane = w.lane_id();
    let own = popc_words(ge);
    let whole = RowLanes { mask: FULL_MASK, width: 32 };
    let before = row_scan(w, a, whole, &lane, own)?.zip(&own, u32::wrapping_sub);
    let first = lane.map(|l| l * row.slots() as u32);
    let at = before.map(|b| cand.wrapping_add(b));
    copy_candidates(w, row, ge, &first, &at, CAND_CAP as u32).await?;
    if !a.has(Mutant::MissingSyncwarpAfterNarrow) {
        w.syncwarp(FULL_MASK, "narrow_row: __syncwarp()").await?;
    }
    take_candidates(w, cand, n, m, 4).await
}

/// `narrow_row` of a whole-warp row (the search left `EXIT_NARROW`: its last count, at
/// `lo_key`, found `k < n <= CAND_CAP` keys `>= lo_key`): those keys and their indices to the
/// row's share of the stage in index order, then four per lane back (`copy_and_take`).
pub(crate) trait NarrowRow {
    /// The row narrowed to its candidates (`s.count_at_lo` of them) through `cand`.
    async fn narrow_row(
        &self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        s: &Search,
        cand: u32,
    ) -> Result<CandRow, SimError>;
}

impl NarrowRow for WarpRow {
    /// The last count's slot masks (`ge_last`) say which slots.
    async fn narrow_row(
        &self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        s: &Search,
        cand: u32,
    ) -> Result<CandRow, SimError> {
        copy_and_take(w, a, (self, self.m), &self.ge_last, s.count_at_lo, cand).await
    }
}

impl NarrowRow for PackedRow {
    /// The masks made again at the narrowing count's threshold, `lo_key` (`slots_ge`); the
    /// candidates' keys are their own 16-bit keys.
    async fn narrow_row(
        &self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        s: &Search,
        cand: u32,
    ) -> Result<CandRow, SimError> {
        let mut ge = vec![Lanes::splat(0u32); mask_words(self.epl)];
        self.slots_ge(s.lo_key, &mut ge);
        copy_and_take(w, a, (self, self.m), &ge, s.count_at_lo, cand).await
    }
}

/// `finish_candidates`: a narrowed row (one warp) after `narrow_row` — the rest of the exact
/// search over its candidates, stage 3 over them, and the row's iteration count.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn finish_candidates(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    narrowed: &mut CandRow,
    s: &mut Search,
    cand: u32,
    out: &RowOut<'_>,
    iter_at: (Option<crate::engine::warp::BufId>, u64),
    tr: Tracer<'_>,
) -> Result<u32, SimError> {
    tr.with(|r| r.narrowed(s.iterations, narrowed.n));
    finish_exact(w, a, narrowed, s, tr).await?;
    // stage 3: select_topk
    let c = cut_of(w, a, narrowed, s).await?;
    trace_cut(tr, s, &c);
    select_candidates(w, a, narrowed, &c, cand, out, tr).await?;
    let lane0 = w.lane_id().map(|l| l == 0);
    write_iterations(w, iter_at, s.iterations, &lane0).await?;
    Ok(c.band_lo)
}

/// The trace's record of the search's end and the cut.
pub(crate) fn trace_cut(tr: Tracer<'_>, s: &Search, c: &crate::rtopk::select::Cut) {
    tr.with(|r| {
        r.cut(TraceCut {
            exit: s.search_exit(),
            iterations: s.iterations,
            strong_above: c.strong_above,
            band_lo: c.band_lo,
            strong_count: c.strong_count,
        })
    });
}

/// `pad_results`: a ragged row's output slots `k_i .. width` (its own k, the output's width)
/// get docs/contract.md §5's padding — index PAD (`0xffffffff`), value 0 (`(elem_t)0`: all
/// bits zero, 8 bytes of them on a 64-bit row, `elem`) — from threads `t` striding by
/// `stride`. Disjoint from the slots the selection writes, so it runs first.
pub(crate) async fn pad_results(
    w: &mut Warp<'_>,
    (out_val, out_idx, out_off): (
        crate::engine::warp::BufId,
        crate::engine::warp::BufId,
        &Lanes<u64>,
    ),
    elem: ElemType,
    (k, width): (u32, u32),
    t: &Lanes<u32>,
    stride: u32,
) -> Result<(), SimError> {
    let mut base = k;
    while base < width {
        let pos = t.map(|t| base.saturating_add(t));
        let saved = w.push_active(&pos.map(|p| p < width), "pad_results: p < width")?;
        let at = w.add_u64(out_off, &pos.map(u64::from), "pad_results: out + p")?;
        w.st_global(out_idx, &at, &Lanes::splat(u32::MAX), "pad_results: out_idx[p] = PAD").await?;
        let label = "pad_results: out_val[p] = 0";
        if elem.wide() {
            w.st_global64(out_val, &at, &Lanes::splat(0), label).await?;
        } else {
            w.st_global(out_val, &at, &Lanes::splat(0), label).await?;
        }
        w.pop_active(saved);
        base = base.saturating_add(stride);
    }
    Ok(())
}

/// `if (writer && p.out_iter) out_iter[row_id] = iterations` (the row's first thread writes
/// it; a null `out_iter`, `None`, wants no counts).
pub(crate) async fn write_iterations(
    w: &mut Warp<'_>,
    (buf, row_id): (Option<crate::engine::warp::BufId>, u64),
    iterations: u32,
    writer: &Lanes<bool>,
) -> Result<(), SimError> {
    let Some(buf) = buf else { return Ok(()) };
    let saved = w.push_active(writer, "out_iter: if (the row's first thread)")?;
    w.st_global(
        buf,
        &Lanes::splat(row_id),
        &Lanes::splat(iterations),
        "out_iter[row_id] = iterations",
    )
    .await?;
    w.pop_active(saved);
    Ok(())
}
