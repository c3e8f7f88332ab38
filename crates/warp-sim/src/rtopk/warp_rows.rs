//! The warp-row kernels (the CUDA kernel's `warp_rows.cu`): `rtopk_quarter_rows_<EPL>`,
//! `rtopk_half_rows_<EPL>` and `rtopk_warp_rows_<EPL>`, one row per `LANES` = 8, 16 or 32
//! lanes, EPL keys per lane in registers (docs/kernel.md, the last table). Each simulated task
//! is one row's lanes; the rows of a warp go their own ways, each collective naming its own
//! lanes. An f32 row keeps its keys ([`WarpRow`]), a 16-bit row its elements ([`PackedRow`]):
//! the stages after the load are the same for both.

use crate::engine::error::SimError;
use crate::engine::lanes::{FULL_MASK, Lanes};
use crate::engine::warp::Warp;
use crate::rtopk::args::{CAND_CAP, KernelArgs, WARP_STAGE};
use crate::rtopk::coverage::Branch;
use crate::rtopk::floor::{NO_FLOOR, count_at_floor, floor_cut, floor_of, pad_below_floor, raised};
use crate::rtopk::load::{key_ints, load_ints, load_row};
use crate::rtopk::mutant::Mutant;
use crate::rtopk::narrow::{
    NarrowRow, finish_candidates, pad_results, trace_cut, write_iterations,
};
use crate::rtopk::params::{Params, RowPlace};
use crate::rtopk::rows::{PackedRow, Row, RowLanes, Slots, WarpRow, mask_words, row_max, row_min};
use crate::rtopk::search::{Exit, cover_search, search_threshold};
use crate::rtopk::select::{RowOut, Stage, cut_of, select_topk_lanes};

/// `row_id * (u64)len`: a row's offset, in 64 bits (in 32 under [`Mutant::RowOffset32Bit`]
/// where `len` is M): the sorts' rows (the top-k launches' are `place_row`'s).
pub(crate) fn row_offset(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row_id: u64,
    len: u64,
    label: &'static str,
) -> Result<Lanes<u64>, SimError> {
    if a.has(Mutant::RowOffset32Bit) && len == a.m as u64 {
        // BUG: `row_id * m` in 32 bits.
        let off = w.mul_u32(&Lanes::splat(row_id as u32), &Lanes::splat(len as u32), label)?;
        return Ok(off.map(u64::from));
    }
    w.mul_u64(&Lanes::splat(row_id), &Lanes::splat(len), label)
}

/// `rtopk_warp_row`: one row on its lanes — `load_row` (keys of an f32 row, or a 16-bit row's
/// elements packed), `row_min` / `row_max`, `search_threshold`, `narrow_row` where the row
/// narrows, `cut_of`, `select_topk_lanes`, and the row's iteration count.
async fn rtopk_warp_row(
    w: &mut Warp<'_>,
    p: &Params<'_>,
    row_id: u64,
    stage: Stage,
    narrows: bool,
) -> Result<(), SimError> {
    let a = &p.a;
    let (epl, width) = (p.plan.keys_per_lane as u32, p.plan.lanes_per_row as u32);
    let lane = w.lane_id();
    let sub = lane.map(|l| l % width);
    let first = w.mul_u32(&sub, &Lanes::splat(epl), "rtopk_warp_row: first = sub * EPL")?;
    if a.has(Mutant::IdleLanesExitEarly) {
        // BUG: lanes without an element "save work" by returning.
        w.exit_where(&first.map(|f| f >= a.m as u32), "rtopk_warp_row: if (first >= M) return")?;
    }
    // a ragged row's own width and k (docs/contract.md §5), read once; a ragged split's chunk
    // rows pad nothing (split_row_args)
    let (width_k, pads) = (p.a.k as u32, p.chunks == 1);
    // the launch's 16-byte alignment holds for every row it runs whatever the row's own width:
    // a ragged twin's row loads the group its end cuts element by element (load_row's CUT)
    let loads = (p.vec4, p.plan.unit.is_ragged());
    let (p, at) = p.row_args(w, row_id)?;
    let p = &p;
    let a = &p.a;
    if (a.k as u32) < width_k && pads {
        let bufs = (p.out_val, p.out_idx, &at.out);
        pad_results(w, bufs, p.elem, (a.k as u32, width_k), &sub, width).await?;
    }
    if a.k == 0 {
        return write_iterations(w, (p.out_iter, row_id), 0, &sub.map(|s| s == 0)).await;
    }
    // stage 1: load_row
    let seg = lane.zip(&sub, |l, s| {
        let ones = if width == 32 { FULL_MASK } else { (1u32 << width) - 1 };
        // BUG (SegmentMaskUnshifted): the mask of the warp's first row for every row.
        if width == 32 || a.has(Mutant::SegmentMaskUnshifted) { ones } else { ones << (l - s) }
    });
    let lanes = RowLanes { mask: w.uniform(&seg, "rtopk_warp_row: row.lanes")?, width };
    let cap = if narrows { CAND_CAP as u32 } else { 0 };
    let m = a.m as u32;
    let on = RowOn { row_id, at, lanes, sub, first, stage, narrows };
    if !p.elem.packed16() {
        let mut row = WarpRow {
            keys: vec![Lanes::splat(0u32); epl as usize],
            m,
            lanes,
            cap,
            ge_last: vec![Lanes::splat(0u32); mask_words(epl as usize)],
            stage: stage.base,
        };
        let range = if p.elem.integer() {
            let n = row.keys.len();
            let v = load_ints(w, (a, p.elem), p.x, (&at.input, &first), n, loads).await?;
            key_ints(w, (a, p.elem), &mut row.keys, &v, &first)?
        } else {
            let lanes = (&first, Some(width));
            load_row(w, a, p.x, &at.input, &mut row.keys, lanes, loads).await?
        };
        return warp_row_stages(w, p, &mut row, range, &on).await;
    }
    let mut row = PackedRow::new(epl as usize, (m, lanes, cap), a, p.elem);
    let range = row.load_row(w, a, p.x, &at.input, &first, loads).await?;
    warp_row_stages(w, p, &mut row, range, &on).await
}

/// Where a warp row sits: its id and place, its lanes, each lane's place among them and first
/// element, its share of the stage, whether it narrows.
struct RowOn {
    row_id: u64,
    at: RowPlace,
    lanes: RowLanes,
    sub: Lanes<u32>,
    first: Lanes<u32>,
    stage: Stage,
    narrows: bool,
}

/// `rtopk_warp_row` after the load, for either row storage (the CUDA kernel's template over
/// `WarpRow` / `PackedRow`).
async fn warp_row_stages<R: Row + Slots + NarrowRow>(
    w: &mut Warp<'_>,
    p: &Params<'_>,
    row: &mut R,
    (lane_min, lane_max): (Lanes<u32>, Lanes<u32>),
    on: &RowOn,
) -> Result<(), SimError> {
    let a = &p.a;
    let (lanes, first, row_id) = (on.lanes, on.first, on.row_id);
    let tr = p.tracer(row_id);
    if tr.on() {
        let mut keys = vec![0u32; a.m];
        for l in crate::engine::lanes_of(w.group_lanes()) {
            for j in 0..row.slots() {
                if let Some(k) = keys.get_mut(first.lane(l) as usize + j) {
                    *k = row.slot_key(j).lane(l);
                }
            }
        }
        tr.with(|r| r.loaded(keys));
    }
    let lo_key = row_min(w, a, lanes, lane_min, "row_min(lane_min)")?;
    let hi_key = row_max(w, a, lanes, lane_max, "row_max(lane_max)")?;
    let lo_key = w.uniform(&lo_key, "search: lo_key")?;
    let hi_key = w.uniform(&hi_key, "search: hi_key")?;
    tr.with(|r| r.range(lo_key, hi_key));
    // a split's floor (floor.rs): at most k keys at or above it are the chunk's selection,
    // more start the search from it
    let first_lane = on.sub.map(|s| s == 0);
    let mut floor = 0;
    if p.floor.is_some() {
        // launch-uniform: a split's chunk rows
        let f = floor_of(w, p, row_id, &first_lane).await?;
        let f = w.shfl_sync(lanes.mask, &f, 0, lanes.width, "floor = shfl(floor, 0)")?;
        floor = w.uniform(&f, "floor")?;
    }
    let at_floor = count_at_floor(w, a, row, floor, lo_key).await?;
    let under = at_floor <= a.k as u32;
    let lo_key = if at_floor != NO_FLOOR && !under { floor } else { lo_key };
    let out = RowOut {
        x: p.x,
        row_off: on.at.input,
        out_val: p.out_val,
        out_idx: p.out_idx,
        out_off: on.at.out,
        sign: a.sign(),
        elem: p.elem,
    };
    if under {
        // stage 3 over the keys at or above the floor, then the padding
        p.covered(Branch::FloorCut);
        let c = floor_cut(floor, at_floor);
        select_topk_lanes(w, a, row, lanes, &c, &on.sub, &first, on.stage, &out, tr).await?;
        let bufs = (p.out_val, p.out_idx, &on.at.out);
        let k = (at_floor, a.k as u32);
        pad_below_floor(w, bufs, (p.elem, a.sign()), k, &on.sub, lanes.width).await?;
        return write_iterations(w, (p.out_iter, row_id), 0, &first_lane).await;
    }
    // stage 2: search_threshold
    let hint = p.row_hint(row_id);
    let of = (p.elem, p.out_iter.is_some(), p.plan.unit.is_ragged());
    let mut s = search_threshold(w, a, row, (lo_key, hi_key), of, hint, tr).await?;
    if on.narrows && s.exit == Exit::Narrow {
        // BUG (WarpsShareCandidates): every row's candidates at the start of the block's stage.
        let cand = if a.has(Mutant::WarpsShareCandidates) { 0 } else { on.stage.base };
        let mut narrowed = row.narrow_row(w, a, &s, cand).await?;
        let iter_at = (p.out_iter, row_id);
        let band_lo =
            finish_candidates(w, a, &mut narrowed, &mut s, cand, &out, iter_at, tr).await?;
        cover_search(p, &s, true);
        return raised(w, p, row_id, band_lo, &first_lane).await;
    }
    cover_search(p, &s, false);
    // stage 3: select_topk
    let c = cut_of(w, a, row, &s).await?;
    trace_cut(tr, &s, &c);
    select_topk_lanes(w, a, row, lanes, &c, &on.sub, &first, on.stage, &out, tr).await?;
    raised(w, p, row_id, c.band_lo, &first_lane).await?;
    write_iterations(w, (p.out_iter, row_id), s.iterations, &first_lane).await
}

/// `rtopk_warp_rows_impl<EPL, LANES, WARPS>`: `32 / LANES` rows per warp, `blockDim / LANES`
/// per block; each row's share of the block's stage; rows past the end return.
pub(crate) async fn rtopk_warp_rows_impl(w: &mut Warp<'_>, p: &Params<'_>) -> Result<(), SimError> {
    let width = p.plan.lanes_per_row as u64;
    let rows_per_block = u64::from(w.block_dim()) / width;
    let cap = WARP_STAGE as u32 / rows_per_block as u32; // each row's share of the stage
    let tid = w.thread_idx();
    let block = u64::from(w.block_idx());
    let row = tid.map(|t| (block * u64::from(w.block_dim()) + u64::from(t)) / width);
    let row_id = w.uniform(&row, "rtopk_warp_rows: row_id")?;
    if row_id >= p.a.n as u64 {
        w.exit(); // row-uniform: the partial last block
        return Ok(());
    }
    // BUG (RowsShareStage): the warp's index, not the row's, picks the share.
    let share = if p.a.has(Mutant::RowsShareStage) {
        tid.map(|t| t / 32)
    } else {
        tid.map(|t| t / width as u32)
    };
    let share = w.uniform(&share, "rtopk_warp_rows: stage share")?;
    let stage = Stage { base: share * cap, cap };
    // Whole-warp rows of 12 to 32 keys per lane narrow in exact mode where k < CAND_CAP (the
    // plan's `narrows`); a second instantiation without the narrowing serves the rest.
    rtopk_warp_row(w, p, row_id, stage, p.plan.narrows).await
}
