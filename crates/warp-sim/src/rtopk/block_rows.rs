//! The block-row kernels (the CUDA kernel's `block_rows.cu`): `rtopk_block_rows` and
//! `rtopk_block_rows_narrow`, one block per row — 32 keys per thread in registers, the next
//! `cached` in shared memory, the rest re-keyed from the input on each pass; block sums and
//! prefixes through per-warp slots and `__syncthreads`; in the narrowing kernel the block's
//! candidates handed to its first warp, which finishes alone. A 16-bit row's block holds its
//! elements' own 16-bit keys where an f32 row's holds f32 keys (`load_block_keys16`,
//! `own_key`; docs/kernel.md, "16-bit rows").

use crate::engine::error::SimError;
use crate::engine::global::Source;
use crate::engine::lanes::{FULL_MASK, Lanes};
use crate::engine::warp::Warp;
use crate::rtopk::args::{
    BLOCK_CAND_CAP, BLOCK_CAND_KEYS, BLOCK_EPL, BLOCK_LOAD_STAGE_WARP, BLOCK_STAGE,
};
use crate::rtopk::args::{KernelArgs, SearchExit};
use crate::rtopk::coverage::Branch;
use crate::rtopk::floor::{NO_FLOOR, count_at_floor, floor_cut, floor_of, pad_below_floor, raised};
use crate::rtopk::load::{key_f32_slots, key_ints, load_halves, load_ints, load_row};
use crate::rtopk::mutant::Mutant;
use crate::rtopk::narrow::{
    copy_candidates, finish_candidates, pad_results, take_candidates, trace_cut, write_iterations,
};
use crate::rtopk::order::{
    ElemType, check_keys, key16_of_ordered, number_key, ordered_value_of_key, own_key,
};
use crate::rtopk::params::Params;
use crate::rtopk::record::Tracer;
use crate::rtopk::rows::{BlockRow, block_prefix, block_smem, popc_words, zero_shared_words};
use crate::rtopk::search::{
    Exit, Search, Value, cover_search, finish_exact, search_threshold, value_of_bracket,
};
use crate::rtopk::select::{RowOut, Stage, Sync, classify, emit_staged, select_chunk, taken};

/// `block_range`: the block-wide min and max key, through the per-warp slots
/// `s_partial[64 ..]` (apart from the block sums' slots).
pub(crate) async fn block_range(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    lane_min: &Lanes<u32>,
    lane_max: &Lanes<u32>,
) -> Result<(u32, u32), SimError> {
    let (warp, nwarps) = (w.warp_idx(), w.warps_per_block());
    let lo = w.reduce_min_sync(FULL_MASK, lane_min, "block_range: __reduce_min_sync")?;
    let hi = w.reduce_max_sync(FULL_MASK, lane_max, "block_range: __reduce_max_sync")?;
    let slots = block_smem::PARTIAL + 64;
    let lane = w.lane_id();
    let lane0 = lane.map(|l| l == 0);
    let saved = w.push_active(&lane0, "block_range: if (lane == 0)")?;
    w.st_shared(&Lanes::splat(slots + warp), &lo, "block_range: slots[warp] = lane_min").await?;
    w.st_shared(&Lanes::splat(slots + 32 + warp), &hi, "block_range: slots[32 + warp] = lane_max")
        .await?;
    w.pop_active(saved);
    let misplaced = a.has(Mutant::BlockRangeBarrierMisplaced);
    if !misplaced {
        w.syncthreads("block_range: __syncthreads()").await?;
    }
    let reads = lane.map(|l| l < nwarps);
    let saved = w.push_active(&reads, "block_range: lane < nwarps")?;
    let mins = w.ld_shared(&lane.map(|l| slots + l), "block_range: slots[lane]").await?;
    let maxs = w.ld_shared(&lane.map(|l| slots + 32 + l), "block_range: slots[32 + lane]").await?;
    w.pop_active(saved);
    if misplaced {
        w.syncthreads("block_range: __syncthreads() (after the reads)").await?; // BUG
    }
    let mins = Lanes::select(&reads, &mins, &Lanes::splat(u32::MAX));
    let maxs = Lanes::select(&reads, &maxs, &Lanes::splat(0));
    let lo = w.reduce_min_sync(FULL_MASK, &mins, "block_range: min of slots")?;
    let hi = w.reduce_max_sync(FULL_MASK, &maxs, "block_range: max of slots")?;
    let (lo, hi) = (w.uniform(&lo, "search: lo_key")?, w.uniform(&hi, "search: hi_key")?);
    w.block_uniform(u64::from(lo) << 32 | u64::from(hi), "block_range: lo_key, hi_key")?;
    Ok((lo, hi))
}

/// `narrow_row` of a block row: every thread copies its candidates (the last count's mask)
/// and their indices to the stage in index order (one `block_prefix` of the threads' counts
/// places them), then `__syncthreads()` hands them to the first warp.
async fn narrow_row(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &BlockRow<'_>,
    cand: u32,
) -> Result<(), SimError> {
    let own = popc_words(&row.ge_last);
    let (before, _total) = block_prefix(w, &own, block_smem::CHUNK).await?;
    let first = w.thread_idx().map(|t| BLOCK_EPL as u32 * t);
    let at = before.map(|b| cand.wrapping_add(b));
    copy_candidates(w, row, &row.ge_last, &first, &at, BLOCK_CAND_CAP as u32).await?;
    if !a.has(Mutant::BlockNarrowMissingBarrier) {
        w.syncthreads("narrow_row: __syncthreads()").await?;
    }
    Ok(())
}

/// The block row's keys past its registers: `smem[i - in_regs]` where cached, and each
/// thread's min and max key over them.
async fn load_rest(
    w: &mut Warp<'_>,
    p: &Params<'_>,
    row: &BlockRow<'_>,
    lane_min: &mut Lanes<u32>,
    lane_max: &mut Lanes<u32>,
    tr: crate::rtopk::record::Tracer<'_>,
) -> Result<(), SimError> {
    let bd = w.block_dim();
    let mut i = w.thread_idx().map(|t| row.in_regs + t);
    let mut base = row.in_regs;
    while base < row.m {
        let inside = i.map(|i| i < row.m);
        let saved = w.push_active(&inside, "load_row: i < M (past the registers)")?;
        let addr =
            w.add_u64(&Lanes::splat(row.row_off), &i.map(u64::from), "load_row: row_in + i")?;
        let v = w.ld_input(p.x, &addr, "load_row: row_in[i]").await?;
        let key = v.map(|v| own_key(&p.a, p.elem, v, row.sign));
        let label = "load_row: own_key is docs/contract.md §1's key";
        check_keys(w, p.a.mode, p.elem, &v, &key, inside.mask(), label)?;
        let cached = i.map(|i| i - row.in_regs < row.cached);
        let s2 = w.push_active(&cached, "load_row: i - in_regs < cached")?;
        let at = i.map(|i| block_smem::KEYS + i - row.in_regs);
        w.st_shared(&at, &key, "load_row: smem[i - in_regs] = key").await?;
        w.pop_active(s2);
        let (lo, hi) = (lane_min.zip(&key, u32::min), lane_max.zip(&key, u32::max));
        w.assign(lane_min, &lo);
        w.assign(lane_max, &hi);
        for l in crate::engine::lanes_of(if tr.on() { w.active_mask() } else { 0 }) {
            tr.with(|r| r.loaded_slots(i.lane(l) as usize, &[key.lane(l)]));
        }
        let next = i.map(|i| i + bd);
        w.assign(&mut i, &next);
        w.pop_active(saved);
        base += bd;
    }
    Ok(())
}

/// `stages_loads`: whether the launch gave the block the shared memory to stage its loads in
/// (the plan's `BLOCK_LOAD_STAGE_WARP` bytes a warp, where the device's opt-in limit allows).
pub(crate) fn stages_loads(w: &Warp<'_>, p: &Params<'_>) -> bool {
    p.plan.dynamic_shared as usize >= w.warps_per_block() as usize * BLOCK_LOAD_STAGE_WARP
}

/// `stage_slot`: the slot of a warp's 16-byte chunk `u` in its staging area — the chunks in
/// groups of 8 (one thread's), each group's order turned by the group's number, so that
/// neither a quarter warp's stores nor its loads meet a bank twice.
fn stage_slot(u: u32) -> u32 {
    (u & !7) | ((u ^ (u >> 3)) & 7)
}

/// `load_block_staged`: stage 1's loads of an f32 block row of 16-byte aligned rows — lane
/// `w`'s load `q` reads its warp's chunk `32 q + w` (512 consecutive bytes a load), every load
/// issued before any is used (the chunk a ragged row's end cuts element by element); the
/// chunks reach their owners (thread `t` owns elements `32 t .. 32 t + 31`) through the warp's
/// 4 KB of the dynamic shared memory, at `stage_slot`. Returns the thread's elements' bits (0
/// past M).
async fn load_block_staged(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    x: &dyn Source,
    row_off: &Lanes<u64>,
) -> Result<Vec<Lanes<u32>>, SimError> {
    let chunks = (BLOCK_EPL / 4) as u32; // a thread's 16-byte chunks
    let m = a.m as u32;
    let lane = w.lane_id();
    let own = block_smem::KEYS + w.warp_idx() * 32 * chunks * 4; // the warp's words
    let warp_first = w.warp_idx() * 32 * BLOCK_EPL as u32;
    let mut chunk = vec![[Lanes::splat(0u32); 4]; chunks as usize];
    for (q, c) in chunk.iter_mut().enumerate() {
        let i = lane.map(|l| warp_first + 4 * (32 * q as u32 + l));
        // BUG (LoadPastM): no `i + 4 <= M` test: every chunk read whole.
        let whole =
            if a.has(Mutant::LoadPastM) { Lanes::splat(true) } else { i.map(|i| i + 4 <= m) };
        let saved = w.push_active(&whole, "load_block_staged: i + 4 <= M")?;
        let addr = w.add_u64(row_off, &i.map(u64::from), "load_block_staged: row_in + i")?;
        let quad = w.ld_input_v4(x, &addr, "load_block_staged: uint4 row_in[i]").await?;
        for (e, val) in quad.iter().enumerate() {
            w.assign(&mut c[e], val);
        }
        w.pop_active(saved);
        // the chunk a ragged row's end cuts, element by element; 0 past the end
        for (e, slot) in c.iter_mut().enumerate() {
            let inside = whole.not().and(&i.map(|i| i + (e as u32) < m));
            let saved = w.push_active(&inside, "load_block_staged: i + e < M")?;
            let at = i.map(|i| u64::from(i) + e as u64);
            let addr = w.add_u64(row_off, &at, "load_block_staged: row_in + i + e")?;
            let val = w.ld_input(x, &addr, "load_block_staged: row_in[i + e]").await?;
            w.assign(slot, &val);
            w.pop_active(saved);
        }
    }
    for (q, c) in chunk.iter().enumerate() {
        let slot = lane.map(|l| stage_slot(32 * q as u32 + l));
        for (e, val) in c.iter().enumerate() {
            let at = slot.map(|s| own + 4 * s + e as u32);
            w.st_shared(&at, val, "load_block_staged: own[stage_slot(32 q + lane)] = chunk[q]")
                .await?;
        }
    }
    // BUG (StagedLoadsMissingSyncwarp): the other lanes' chunks read without the __syncwarp.
    if !a.has(Mutant::StagedLoadsMissingSyncwarp) {
        w.syncwarp(FULL_MASK, "load_block_staged: the chunks staged").await?;
    }
    let mut v = vec![Lanes::splat(0u32); BLOCK_EPL];
    for q in 0..chunks {
        let slot = lane.map(|l| stage_slot(chunks * l + q));
        for e in 0..4 {
            let at = slot.map(|s| own + 4 * s + e);
            let val = w.ld_shared(&at, "load_block_staged: own[stage_slot(8 lane + q)]").await?;
            w.assign(&mut v[(4 * q + e) as usize], &val);
        }
    }
    Ok(v)
}

/// `load_block_keys16`: stage 1 of a 16-bit block row — the thread's `BLOCK_EPL` elements
/// (16-byte loads of 8 where the row starts `aligned`, a ragged row's, `cut`, but for the group
/// its end cuts) as their own 16-bit keys (padding: key 0); returns the thread's min key over
/// those inside the row and its max key.
async fn load_block_keys16(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    p: &Params<'_>,
    row_off: &Lanes<u64>,
    keys: &mut [Lanes<u32>],
    first: &Lanes<u32>,
    (aligned, cut): (bool, bool),
) -> Result<(Lanes<u32>, Lanes<u32>), SimError> {
    let halves = load_halves(w, a, p.x, row_off, first, keys.len(), (aligned, cut)).await?;
    let (elem, m, largest) = (p.elem, a.m as u32, a.sign() > 0.0);
    let flip = if largest { 0 } else { 0x8000 };
    let mut lo = Lanes::splat(u32::MAX);
    let mut hi = Lanes::splat(0u32);
    for (j, (key, bits)) in keys.iter_mut().zip(&halves).enumerate() {
        let valid = first.map(|f| f.saturating_add(j as u32) < m);
        *key =
            bits.zip(&valid, |b, v| if v { key16_of_ordered(elem, b ^ flip, largest) } else { 0 });
        lo = Lanes::select(&valid, &lo.zip(key, u32::min), &lo);
        hi = hi.zip(key, u32::max); // 0 is neutral
        check_keys(
            w,
            a.mode,
            elem,
            bits,
            key,
            valid.mask(),
            "load_block_keys16: docs/contract.md §1's keys",
        )?;
    }
    Ok((lo, hi))
}

/// `load_block_slots`: stage 1's loads into registers — thread `t`'s `BLOCK_EPL` slots hold
/// elements `first .. first + BLOCK_EPL - 1` of the row at `row_off` (`p.a.m` wide; key 0 past
/// it), keyed; returns the thread's min and max key over those inside the row. `aligned`: the
/// row starts 16-byte aligned (the launch's `vec4`), so 16-byte loads, which a ragged row (its
/// twin's) of any width keeps but for the group its end cuts, on every path; `staged`: an f32
/// row's loads through the warp's staging area (`load_block_staged`). Block rows and cluster
/// rows (`cluster_rows.rs`) alike.
pub(crate) async fn load_block_slots(
    w: &mut Warp<'_>,
    p: &Params<'_>,
    keys: &mut [Lanes<u32>],
    (row_off, first): (&Lanes<u64>, &Lanes<u32>),
    (aligned, staged): (bool, bool),
) -> Result<(Lanes<u32>, Lanes<u32>), SimError> {
    let a = &p.a;
    // a ragged row (its twin's) keeps 16-byte loads but for the group its end cuts
    let cut = p.plan.unit.is_ragged();
    if staged {
        let v = load_block_staged(w, a, p.x, row_off).await?;
        key_f32_slots(w, a, keys, &v, (first, None)) // each thread its own choice
    } else if p.elem == ElemType::F32 {
        load_row(w, a, p.x, row_off, keys, (first, None), (aligned, cut)).await
    } else if p.elem.integer() {
        let n = keys.len();
        let v = load_ints(w, (a, p.elem), p.x, (row_off, first), n, (aligned, cut)).await?;
        key_ints(w, (a, p.elem), keys, &v, first)
    } else {
        load_block_keys16(w, a, p, row_off, keys, first, (aligned, cut)).await
    }
}

/// Bins of a histogram of 16-bit keys' bytes (`HIST16_BINS`): 16-bit rows by histograms
/// (docs/kernel.md, "16-bit rows by histograms") — a 16-bit row has at most 65536 keys, so the
/// high byte of its k-th greatest key is the bin of a histogram of its keys' high bytes where
/// the keys above it reach k, and its low byte that of a second histogram over the keys of that
/// high byte: block rows held in registers ([`block_histogram_search`]) and cluster rows
/// (cluster_rows.rs' `histogram_search`).
pub(crate) const HIST16_BINS: u32 = 256;

/// `histograms`: whether a row's search is by histograms — a 16-bit row in exact mode without a
/// precision or a recall target, whose counts nobody asked for (docs/contract.md §3's counts
/// are bisect's). The kernel's call sites leave out the rows [`plain_search`] leaves out and
/// (block rows) the narrowing kernel and rows not held in registers.
pub(crate) fn histograms(p: &Params<'_>) -> bool {
    let a = &p.a;
    p.elem.packed16()
        && p.out_iter.is_none()
        && a.bisect.max_iter.is_none()
        && a.bisect.precision == 0.0
        && !matches!(a.bisect.recall, Some(r) if r > 0.0)
}

/// `kth_bin`: the bin of the `k`-th greatest key of the histogram at `h` (every warp
/// alike, `1 <= k <=` its total) — lane `l` sums bins `8 l .. 8 l + 7`, a shuffle scan sums
/// the lanes above each, and the lane whose bins reach `k` walks them down. Returns the bin,
/// the keys in the bins above it, and its own.
pub(crate) async fn kth_bin(w: &mut Warp<'_>, h: u32, k: u32) -> Result<(u32, u32, u32), SimError> {
    let lane = w.lane_id();
    let mut c = Vec::with_capacity(8);
    for i in 0..8 {
        c.push(w.ld_shared(&lane.map(|l| h + 8 * l + i), "kth_bin: h[8 lane + i]").await?);
    }
    let sum = c.iter().fold(Lanes::splat(0u32), |s, x| s.zip(x, |a, b| a + b));
    let from = suffix_sum(w, &lane, sum, "kth_bin: shfl_down(from, d)")?; // lanes lane..31
    let past = from.zip(&sum, |f, s| f - s); // the keys in lanes above this one
    let owns = past.zip(&from, |p, f| p < k && k <= f);
    let src = first_lane(w, &owns, "kth_bin: __ballot_sync(past < k <= from)")?;
    let (mut bin, mut over, mut here) = (Lanes::splat(0u32), past, Lanes::splat(0u32));
    let mut found = Lanes::splat(false);
    for (i, ci) in c.iter().enumerate().rev() {
        let reach = over.zip(ci, |o, c| o + c >= k);
        let at = found.zip(&reach, |f, r| !f && r);
        bin = Lanes::select(&at, &lane.map(|l| 8 * l + i as u32), &bin);
        here = Lanes::select(&at, ci, &here);
        found = found.zip(&at, |f, a| f || a);
        let added = over.zip(ci, |o, c| o + c);
        over = Lanes::select(&found, &over, &added);
    }
    let mut out = [0u32; 3];
    for (o, v) in out.iter_mut().zip([&bin, &over, &here]) {
        let got = w.shfl_sync(FULL_MASK, v, src, 32, "kth_bin: shfl(v, src)")?;
        *o = w.uniform(&got, "kth_bin: the bin's figures")?;
    }
    Ok((out[0], out[1], out[2]))
}

/// `block_byte_histogram`: one pass of [`block_histogram_search`] over the block's keys in
/// registers (the first `here`) — all of them (`high` none), or those whose high byte is
/// `high`, counted by their high byte (or low byte) into the histogram at `hist` by shared
/// atomics, then the block's barrier.
pub(crate) async fn block_byte_histogram(
    w: &mut Warp<'_>,
    row: &BlockRow<'_>,
    here: u32,
    high: Option<u32>,
    hist: u32,
) -> Result<(), SimError> {
    let first = w.thread_idx().map(|t| BLOCK_EPL as u32 * t);
    for (j, key) in row.keys.iter().enumerate() {
        let valid = first.map(|f| f + (j as u32) < here);
        let counted = match high {
            None => valid,
            Some(h) => valid.zip(key, |v, k| v && k >> 8 == h),
        };
        let saved = w.push_active(&counted, "block_byte_histogram: the key is counted")?;
        let bin = key.map(|k| hist + if high.is_none() { k >> 8 } else { k & 0xff });
        let label = "block_byte_histogram: atomicAdd(&s_hist[bin], 1)";
        w.atomic_add_shared(&bin, &Lanes::splat(1), label).await?;
        w.pop_active(saved);
    }
    w.syncthreads("block_byte_histogram: __syncthreads()").await
}

/// `block_histogram_search`: the exact search of a 16-bit block row held in registers
/// ([`histograms`]): two histograms in the stage's second half (zeroed here; a split's floor is
/// its first word), the bracket the converged search's — `lo_key` the k-th key with its count,
/// `hi_key` the next with its — so the answer is too.
async fn block_histogram_search(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &BlockRow<'_>,
    (lo_key, hi_key): (u32, u32),
) -> Result<Search, SimError> {
    let mut s = Search::new(row, (lo_key, hi_key), SearchExit::Converged, 0, row.elem);
    if lo_key == hi_key {
        return Ok(s);
    }
    let hist = block_smem::STAGE + BLOCK_STAGE as u32 / 2;
    zero_shared_words(w, hist, 2 * HIST16_BINS, "block_histogram_search: s_hist[i] = 0").await?;
    w.syncthreads("block_histogram_search: __syncthreads() (zeroed)").await?;
    let k = a.k as u32;
    block_byte_histogram(w, row, row.m, None, hist).await?;
    let (high, above, _) = kth_bin(w, hist, k).await?;
    block_byte_histogram(w, row, row.m, Some(high), hist + HIST16_BINS).await?;
    let (low, above_low, in_low) = kth_bin(w, hist + HIST16_BINS, k - above).await?;
    bracket_of_bins(&mut s, high << 8 | low, above + above_low, in_low);
    Ok(s)
}

/// Value bins (`VALUE_BIN_LANE`, `VALUE_BINS`, `VALUE_BINS_AT`): f32 block rows held in
/// registers searched from a histogram of their values (docs/kernel.md, "Value bins") — one
/// pass counts the block's keys into `VALUE_BINS` bins of equal width over the bracket's
/// values, and the bin of the k-th greatest key leaves the value phase a bracket that many
/// times narrower. The bins lie in the stage past its first `VALUE_BINS_AT` words (a split's
/// floor is its first); each lane of a warp sums a group of `VALUE_BIN_LANE`.
pub(crate) const VALUE_BIN_LANE: u32 = 31;
/// The value bins of a block row (`VALUE_BINS`).
pub(crate) const VALUE_BINS: u32 = 32 * VALUE_BIN_LANE;
/// Where the value bins start in the stage (`VALUE_BINS_AT`).
pub(crate) const VALUE_BINS_AT: u32 = 32;
const _: () =
    assert!((VALUE_BINS_AT + VALUE_BINS) as usize <= BLOCK_STAGE, "the bins fit the stage");

/// `plain_search`: whether a row may take the plain unit's searches (value bins, histograms,
/// and on a cluster a guessed bracket) — every row but, on a ragged twin, the rows of its
/// `_hinted` entry point (a launch that reads hints: they start from their hint) and a row that
/// selects all it has (`search_of` ends it at once). The kernel's `plain_search`, on the row's
/// own arguments (`row_args`).
pub(crate) fn plain_search(p: &Params<'_>) -> bool {
    !(p.plan.unit.is_ragged() && (p.rows.hint.is_some() || p.a.k == p.a.m))
}

/// `value_bins`: whether an f32 row's search may start from its value bins — exact mode without
/// a precision or a recall target, its counts not asked for (docs/contract.md §3's counts are
/// bisect's). The kernel's call site leaves out the rows [`plain_search`] leaves out, the
/// narrowing kernel, rows not held in registers and launches whose plan does not let them
/// (`Plan::value_bins`).
pub(crate) fn value_bins(p: &Params<'_>) -> bool {
    let a = &p.a;
    p.elem == ElemType::F32
        && p.out_iter.is_none()
        && a.bisect.max_iter.is_none()
        && a.bisect.precision == 0.0
        && !matches!(a.bisect.recall, Some(r) if r > 0.0)
}

/// `kth_bin_of<P>`: the bin of the `k`-th greatest key of a histogram of `32 P` bins at `h`
/// whose bin 0 is not counted (every warp alike, `k >= 1`; bin 0 where the bins counted hold
/// fewer than `k`) — lane `l` sums group `l`, bins `P l .. P l + P - 1`, a shuffle scan sums
/// the groups above each, and the group that reaches `k` is walked a bin a lane by a second
/// scan. Returns the bin, the keys in the bins above it, and its own (0 for bin 0).
pub(crate) async fn kth_bin_of(
    w: &mut Warp<'_>,
    h: u32,
    per: u32,
    k: u32,
) -> Result<(u32, u32, u32), SimError> {
    let lane = w.lane_id();
    let mut sum = Lanes::splat(0u32);
    for i in 0..per {
        let c = w.ld_shared(&lane.map(|l| h + per * l + i), "kth_bin_of: h[P lane + i]").await?;
        sum = sum.zip(&c, |a, b| a + b);
    }
    let from = suffix_sum(w, &lane, sum, "kth_bin_of: shfl_down(from, d)")?;
    let past = from.zip(&sum, |f, s| f - s); // the keys in the groups above each
    let owns = past.zip(&from, |p, f| p < k && k <= f);
    let group = first_lane(w, &owns, "kth_bin_of: __ballot_sync(the group)")?;
    if group == u32::MAX {
        // k lies past the bins counted, in bin 0 (uncounted)
        let total = w.shfl_sync(FULL_MASK, &from, 0, 32, "kth_bin_of: shfl(from, 0)")?;
        return Ok((0, w.uniform(&total, "kth_bin_of: the keys counted")?, 0));
    }
    let over = w.shfl_sync(FULL_MASK, &past, group, 32, "kth_bin_of: shfl(from - sum, group)")?;
    let over = w.uniform(&over, "kth_bin_of: the keys above the group")?;
    let inside = lane.map(|l| l < per);
    let saved = w.push_active(&inside, "kth_bin_of: lane < P")?;
    let c =
        w.ld_shared(&lane.map(|l| h + per * group + l), "kth_bin_of: h[P group + lane]").await?;
    w.pop_active(saved);
    let c = Lanes::select(&inside, &c, &Lanes::splat(0u32));
    let f = suffix_sum(w, &lane, c, "kth_bin_of: shfl_down(f, d)")?;
    let owns = f.zip(&c, |f, c| over + f - c < k && k <= over + f);
    let at = first_lane(w, &owns, "kth_bin_of: __ballot_sync(the bin)")?;
    let mut out = [0u32; 2];
    for (o, v) in out.iter_mut().zip([&f.zip(&c, |f, c| f - c), &c]) {
        let got = w.shfl_sync(FULL_MASK, v, at, 32, "kth_bin_of: shfl(v, at)")?;
        *o = w.uniform(&got, "kth_bin_of: the bin's figures")?;
    }
    Ok((per.wrapping_mul(group).wrapping_add(at), over + out[0], out[1]))
}

/// `suffix_sum`: the sum of `v` over lanes `lane..31` of the warp (a shuffle-down scan).
fn suffix_sum(
    w: &mut Warp<'_>,
    lane: &Lanes<u32>,
    v: Lanes<u32>,
    label: &'static str,
) -> Result<Lanes<u32>, SimError> {
    let mut from = v;
    for d in [1, 2, 4, 8, 16] {
        let up = w.shfl_down_sync(FULL_MASK, &from, d, 32, label)?;
        let added = from.zip(&up, |x, u| x + u);
        from = Lanes::select(&lane.map(|l| l + d < 32), &added, &from);
    }
    Ok(from)
}

/// `__ffs(__ballot_sync(FULL_MASK, owns)) - 1`: the first lane that owns (u32::MAX for none).
fn first_lane(w: &mut Warp<'_>, owns: &Lanes<bool>, label: &'static str) -> Result<u32, SimError> {
    let ballot = w.ballot_sync(FULL_MASK, owns, label)?;
    let ballot = w.uniform(&ballot, label)?;
    Ok(if ballot == 0 { u32::MAX } else { ballot.trailing_zeros() })
}

/// `value_bin`: the bin of ordered value `v >= lo` (keys below a split's floor, `v < lo`, fall
/// in bin 0: the conversion saturates, as `__float2uint_rz` does).
fn value_bin(v: f32, lo: f32, scale: f32) -> u32 {
    (((v - lo) * scale) as u32).min(VALUE_BINS - 1)
}

/// The margin of a value bin's edges: 2^-16 of the bracket's width and 2^-21 of its greater
/// magnitude, which is at least 2^-100 (the margin then far above the subnormals' spacing).
const MARGIN_OF_WIDTH: f32 = 1.0 / 65536.0;
const MARGIN_OF_MAGNITUDE: f32 = 1.0 / 2_097_152.0;
const LEAST_MAGNITUDE: f32 = f32::from_bits(0x0d80_0000); // 2^-100

/// `block_value_search`: the search of an f32 block row held in registers by its value bins
/// ([`value_bins`]; the bins zeroed by the caller before a barrier) — the bins' pass (bin 0
/// uncounted: a row's minimum repeated and the keys below a split's floor add no atomics on one
/// word), then the value phase from the k-th key's bin, each side widened by a margin well past
/// the rounding of the bins and of the edges (2^-16 of the width and 2^-21 of the bracket's
/// greater magnitude, at least 2^-100), then `finish_exact`.
async fn block_value_search(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &mut BlockRow<'_>,
    (lo_key, hi_key): (u32, u32),
    tr: Tracer<'_>,
) -> Result<Search, SimError> {
    let mut s = Search::new(row, (lo_key, hi_key), SearchExit::Converged, 0, row.elem);
    if lo_key == hi_key {
        return Ok(s);
    }
    value_of_bracket(a, &mut s);
    let width = s.hi - s.lo;
    let scale = VALUE_BINS as f32 / width;
    let mag = s.lo.abs().max(s.hi.abs());
    let k = a.k as u32;
    if s.value == Value::Plain && scale.is_finite() && mag >= LEAST_MAGNITUDE && k <= row.m {
        let hist = block_smem::STAGE + VALUE_BINS_AT;
        let first = w.thread_idx().map(|t| BLOCK_EPL as u32 * t);
        for (j, key) in row.keys.iter().enumerate() {
            let valid = first.map(|f| f + (j as u32) < row.m);
            let bin = key.map(|k| value_bin(ordered_value_of_key(k), s.lo, scale));
            let counted = valid.zip(&bin, |v, b| v && b != 0);
            let saved = w.push_active(&counted, "block_value_search: inside the row, bin > 0")?;
            let bin = bin.map(|b| hist + b);
            let label = "block_value_search: atomicAdd(&s_hist[value_bin(v)], 1)";
            w.atomic_add_shared(&bin, &Lanes::splat(1), label).await?;
            w.pop_active(saved);
        }
        w.syncthreads("block_value_search: __syncthreads() (the bins)").await?;
        let (b, above, in_bin) = kth_bin_of(w, hist, VALUE_BIN_LANE, k).await?;
        let margin = width * MARGIN_OF_WIDTH + mag * MARGIN_OF_MAGNITUDE;
        let (mut lo, mut hi) = (s.lo, s.hi);
        if b > 0 {
            lo = s.lo.max(s.lo + b as f32 / scale - margin);
        }
        if b + 1 < VALUE_BINS {
            hi = s.hi.min(s.lo + (b + 1) as f32 / scale + margin);
        }
        let (lk, hk) = (lo_key.max(number_key(lo)), hi_key.min(number_key(hi)));
        (s.lo_key, s.hi_key) = (lk, hk);
        (s.lo, s.hi) = (ordered_value_of_key(lk), ordered_value_of_key(hk));
        if b > 0 {
            s.count_at_lo = above + in_bin;
        }
        if lk == hk {
            return Ok(s);
        }
    }
    finish_exact(w, a, row, &mut s, tr).await?;
    Ok(s)
}

/// `bracket_of_bins`: the converged search's bracket at the k-th key `key`, from the
/// histograms — `lo_key` the key with its count (the keys above it and its own), `hi_key` the
/// next with the keys above.
pub(crate) fn bracket_of_bins(s: &mut Search, key: u32, above: u32, own: u32) {
    (s.lo_key, s.count_at_lo) = (key, above + own);
    (s.hi_key, s.count_at_hi, s.has_count_at_hi) = (key + 1, above, true);
}

/// `rtopk_block_row<NARROWS>`: one block per row.
pub(crate) async fn rtopk_block_row(w: &mut Warp<'_>, p: &Params<'_>) -> Result<(), SimError> {
    let row_id = u64::from(w.block_idx());
    // a ragged row's own width and k (docs/contract.md §5), read once; a ragged split's chunk
    // rows pad nothing (split_row_args)
    let (width_k, pads) = (p.a.k as u32, p.chunks == 1);
    // the launch's 16-byte alignment holds for every row it runs whatever the row's own width
    // (the staged load cuts the last group): a whole row, a ragged split's chunk (its start a
    // multiple of the chunk, which the plan's vec4 makes whole groups) and its second stage's
    // candidates (a stride of whole groups)
    let launched = p.vec4;
    let (p, at) = p.row_args(w, row_id)?;
    let p = &p;
    let aligned = launched || p.vec4;
    let a = &p.a;
    let (m, k) = (a.m as u32, a.k as u32);
    if k < width_k && pads {
        let bufs = (p.out_val, p.out_idx, &at.out);
        pad_results(w, bufs, p.elem, (k, width_k), &w.thread_idx(), w.block_dim()).await?;
    }
    if k == 0 {
        let thread0 = w.thread_idx().map(|t| t == 0);
        return write_iterations(w, (p.out_iter, row_id), 0, &thread0).await;
    }
    let tr = p.tracer(row_id);
    let row_off = at.input;
    let in_regs = m.min(BLOCK_EPL as u32 * w.block_dim());
    let mut row = BlockRow {
        keys: vec![Lanes::splat(0u32); BLOCK_EPL],
        ge_last: vec![Lanes::splat(0u32); 1],
        x: p.x,
        row_off: row_off.lane(0),
        m,
        in_regs,
        cached: p.plan.cached_keys.min(m - in_regs),
        half: 0,
        sign: a.sign(),
        cap: if p.plan.narrows { BLOCK_CAND_CAP as u32 } else { 0 },
        elem: p.elem,
        skips: p.plan.unit.is_ragged(),
    };
    // stage 1: load_row (registers, then shared memory, min/max); thread t's slots hold
    // elements BLOCK_EPL t .. BLOCK_EPL t + BLOCK_EPL - 1
    let tid = w.thread_idx();
    let first = tid.map(|t| BLOCK_EPL as u32 * t);
    let staged = p.elem == ElemType::F32 && aligned && stages_loads(w, p);
    let (mut lane_min, mut lane_max) =
        load_block_slots(w, p, &mut row.keys, (&row_off, &first), (aligned, staged)).await?;
    if tr.on() {
        for l in 0..32 {
            let f = first.lane(l) as usize;
            let keys: Vec<u32> =
                row.keys.iter().take(a.m.saturating_sub(f)).map(|k| k.lane(l)).collect();
            tr.with(|r| r.loaded_slots(f, &keys));
        }
    }
    if w.warp_idx() == 0 && staged {
        p.covered(Branch::StagedLoads);
    }
    if w.warp_idx() == 0 && row.cached > 0 {
        p.covered(Branch::SharedKeys);
    }
    if w.warp_idx() == 0 && row.in_regs + row.cached < m {
        p.covered(Branch::Rekeyed);
    }
    // BUG (StagedLoadsMissingBarrier): no barrier between the staging and the cached keys.
    if row.cached > 0 && !a.has(Mutant::StagedLoadsMissingBarrier) {
        // block-uniform: every warp is past its staging before the cached keys overwrite it
        w.syncthreads("load_row: every warp past its staging").await?;
    }
    load_rest(w, p, &row, &mut lane_min, &mut lane_max, tr).await?;
    // a split's floor (floor.rs), read by one thread into the stage (unused until the
    // selection's and the narrowing's block prefixes, whose barriers follow every read of it),
    // seen by all after block_range's barrier
    let thread0 = tid.map(|t| t == 0);
    if p.floor.is_some() {
        let f = floor_of(w, p, row_id, &thread0).await?;
        let saved = w.push_active(&thread0, "floor: if (threadIdx.x == 0)")?;
        let slot = Lanes::splat(block_smem::STAGE);
        w.st_shared(&slot, &f, "floor: s_stage[0] = floor_of(p, row_id)").await?;
        w.pop_active(saved);
    }
    // the value bins zeroed before block_range's barrier (block-uniform)
    let plain = row.in_regs == m && plain_search(p);
    let bins = !p.plan.narrows && p.plan.value_bins && value_bins(p) && plain;
    if bins {
        let at = block_smem::STAGE + VALUE_BINS_AT;
        zero_shared_words(w, at, VALUE_BINS, "s_stage[VALUE_BINS_AT + i] = 0").await?;
    }
    let (lo_key, hi_key) = block_range(w, a, &lane_min, &lane_max).await?;
    tr.with(|r| r.range(lo_key, hi_key));
    // at most k keys at or above the floor are the chunk's selection, more start the search
    // from it
    let mut floor = 0;
    if p.floor.is_some() {
        let slot = Lanes::splat(block_smem::STAGE);
        let f = w.ld_shared(&slot, "floor = s_stage[0]").await?;
        floor = w.uniform(&f, "floor")?;
    }
    let at_floor = count_at_floor(w, a, &mut row, floor, lo_key).await?;
    let under = at_floor <= k;
    let lo_key = if at_floor != NO_FLOOR && !under { floor } else { lo_key };
    // stage 2: search_threshold
    let hint = p.row_hint(row_id);
    let of = (p.elem, p.out_iter.is_some(), p.plan.unit.is_ragged());
    let mut s = None;
    if !under && !p.plan.narrows && histograms(p) && plain {
        // the kernel's 16-bit units without a narrowing kernel
        p.covered(Branch::BlockHistograms);
        s = Some(block_histogram_search(w, a, &row, (lo_key, hi_key)).await?);
    } else if !under && bins {
        // the kernel's f32 units without a narrowing kernel
        p.covered(Branch::BlockValueBins);
        s = Some(block_value_search(w, a, &mut row, (lo_key, hi_key), tr).await?);
    } else if !under {
        s = Some(search_threshold(w, a, &mut row, (lo_key, hi_key), of, hint, tr).await?);
    }
    let out_off = at.out;
    let (out_val, out_idx, sign, elem) = (p.out_val, p.out_idx, a.sign(), p.elem);
    let out = RowOut { x: p.x, row_off, out_val, out_idx, out_off, sign, elem };
    let stage = Stage { base: block_smem::STAGE, cap: BLOCK_STAGE as u32 };
    if let Some(s) = s.as_mut().filter(|s| p.plan.narrows && s.exit == Exit::Narrow) {
        // block-uniform
        narrow_row(w, a, &row, stage.base).await?;
        if w.warp_idx() > 0 {
            w.exit(); // the first warp goes on alone: no barrier follows
            return Ok(());
        }
        let mut narrowed =
            take_candidates(w, stage.base, s.count_at_lo, m, BLOCK_CAND_KEYS).await?;
        let iter_at = (p.out_iter, row_id);
        let band_lo =
            finish_candidates(w, a, &mut narrowed, s, stage.base, &out, iter_at, tr).await?;
        cover_search(p, s, true);
        return raised(w, p, row_id, band_lo, &thread0).await;
    }
    if w.warp_idx() == 0 {
        match &s {
            Some(s) => cover_search(p, s, false),
            None => p.covered(Branch::FloorCut),
        }
    }
    // stage 3: select_topk, first the elements in registers (one block prefix of the threads'
    // packed strong and band counts places them), then past them one chunk of blockDim
    // consecutive elements at a time
    let c = match &s {
        Some(s) => {
            let c = crate::rtopk::select::cut_of(w, a, &mut row, s).await?;
            trace_cut(tr, s, &c);
            c
        }
        None => floor_cut(floor, at_floor),
    };
    let mut band_left = k.wrapping_sub(c.strong_count);
    let (mut strong, mut band) = (vec![Lanes::splat(0u32)], vec![Lanes::splat(0u32)]);
    let own = classify(&row, &first, m, &c, &mut strong, &mut band);
    let (before, total) = block_prefix(w, &own, block_smem::CHUNK).await?;
    let band_taken = (total >> 16).min(band_left);
    let mut written = k.min((total & 0xffff) + band_taken);
    if in_regs == m {
        w.check_that(total & 0xffff == c.strong_count, "select: strong elements = strong_count")?;
    }
    let mut take = vec![Lanes::splat(0u32)];
    let pos = taken(a, &strong, &band, &before, band_left, &mut take);
    if tr.on() {
        trace_slots(tr, &first, a.m, &strong, &band, &take);
    }
    emit_staged(w, a, &take, &pos, written, &first, stage, &tid, w.block_dim(), Sync::Block, &out)
        .await?;
    band_left -= band_taken;
    select_tail(w, a, &row, &c, &mut written, &mut band_left, &out, tr).await?;
    w.check_that(written == c.selects(k), "select: the cut selects k elements (a floor's, n)")?;
    if under {
        let bufs = (p.out_val, p.out_idx, &at.out);
        let t = (&tid, w.block_dim());
        pad_below_floor(w, bufs, (p.elem, a.sign()), (at_floor, k), t.0, t.1).await?;
    } else if w.warp_idx() == 0 {
        raised(w, p, row_id, c.band_lo, &thread0).await?;
    }
    let iterations = s.map_or(0, |s| s.iterations);
    write_iterations(w, (p.out_iter, row_id), iterations, &thread0).await
}

/// The register part's (strong, band, taken) flags of this warp's threads, for the trace.
pub(crate) fn trace_slots(
    tr: crate::rtopk::record::Tracer<'_>,
    first: &Lanes<u32>,
    m: usize,
    strong: &[Lanes<u32>],
    band: &[Lanes<u32>],
    take: &[Lanes<u32>],
) {
    for l in 0..32 {
        let f = first.lane(l) as usize;
        let flags: Vec<(bool, bool, bool)> = (0..BLOCK_EPL)
            .take_while(|j| f + j < m)
            .map(|j| {
                let bit = |v: &[Lanes<u32>]| v[0].lane(l) >> j & 1 == 1;
                (bit(strong), bit(band), bit(take))
            })
            .collect();
        if !flags.is_empty() {
            tr.with(|r| r.selected_slots(f, &flags));
        }
    }
}

/// The selection past the registers: chunks of blockDim consecutive elements, each warp
/// selecting its 32 with `select_chunk` after the warps' strong and band counts are shared
/// through `s_chunk` (lane `w` of every warp reads warp `w`'s: prefix and totals in four
/// reductions).
#[allow(clippy::too_many_arguments)]
async fn select_tail(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &BlockRow<'_>,
    c: &crate::rtopk::select::Cut,
    written: &mut u32,
    band_left: &mut u32,
    out: &RowOut<'_>,
    tr: crate::rtopk::record::Tracer<'_>,
) -> Result<(), SimError> {
    let k = a.k as u32;
    let (warp, nwarps, bd) = (w.warp_idx(), w.warps_per_block(), w.block_dim());
    let lane = w.lane_id();
    let tid = w.thread_idx();
    let chunk = block_smem::CHUNK;
    let mut base = row.in_regs;
    while base < row.m && *written < k {
        let i = tid.map(|t| base + t);
        let valid = i.map(|i| i < row.m);
        let mut key = Lanes::splat(0u32);
        let saved = w.push_active(&valid, "select: i < M")?;
        let kv = row.key_at(w, a, &i).await?;
        w.assign(&mut key, &kv);
        w.pop_active(saved);
        let strong = valid.and(&key.map(|k| k > c.strong_above));
        let band = valid.and(&strong.not()).and(&key.map(|k| k >= c.band_lo));
        let strong_mask = w.ballot_sync(FULL_MASK, &strong, "select: ballot(strong)")?;
        let band_mask = w.ballot_sync(FULL_MASK, &band, "select: ballot(band)")?;
        if !a.has(Mutant::BlockTailMissingBarrier) {
            w.syncthreads("select: __syncthreads() (s_chunk's readers are done)").await?;
        }
        let lane0 = lane.map(|l| l == 0);
        let saved = w.push_active(&lane0, "select: if (lane == 0)")?;
        let popc = |m: &Lanes<u32>| m.map(u32::count_ones);
        w.st_shared(
            &Lanes::splat(chunk + warp),
            &popc(&strong_mask),
            "select: s_chunk[warp] = strong",
        )
        .await?;
        w.st_shared(
            &Lanes::splat(chunk + 32 + warp),
            &popc(&band_mask),
            "select: s_chunk[32 + warp] = band",
        )
        .await?;
        w.pop_active(saved);
        w.syncthreads("select: __syncthreads() (s_chunk written)").await?;
        let reads = lane.map(|l| l < nwarps);
        let saved = w.push_active(&reads, "select: lane < nwarps")?;
        let sw = w.ld_shared(&lane.map(|l| chunk + l), "select: s_chunk[lane]").await?;
        let bw = w.ld_shared(&lane.map(|l| chunk + 32 + l), "select: s_chunk[32 + lane]").await?;
        w.pop_active(saved);
        let zero = Lanes::splat(0u32);
        let (sw, bw) = (Lanes::select(&reads, &sw, &zero), Lanes::select(&reads, &bw, &zero));
        let below = lane.map(|l| l < warp);
        let strong_before = w.reduce_add_sync(
            FULL_MASK,
            &Lanes::select(&below, &sw, &zero),
            "select: strong before",
        )?;
        let band_before = w.reduce_add_sync(
            FULL_MASK,
            &Lanes::select(&below, &bw, &zero),
            "select: band before",
        )?;
        let strong_total = w.reduce_add_sync(FULL_MASK, &sw, "select: strong total")?;
        let band_total = w.reduce_add_sync(FULL_MASK, &bw, "select: band total")?;
        let strong_before = w.uniform(&strong_before, "select: strong_before")?;
        let band_before = w.uniform(&band_before, "select: band_before")?;
        let strong_total = w.uniform(&strong_total, "select: strong_total")?;
        let band_total = w.uniform(&band_total, "select: band_total")?;
        w.block_uniform(
            u64::from(strong_total) << 32 | u64::from(band_total),
            "select: chunk totals",
        )?;
        let my_budget = band_left.saturating_sub(band_before);
        let taken_before = band_before.min(*band_left);
        let at = written.wrapping_add(strong_before).wrapping_add(taken_before);
        let d = select_chunk(w, a, &key, &valid, &i, c, my_budget, at, out).await?;
        if tr.on() {
            let n = (row.m - base.min(row.m)).saturating_sub(32 * warp).min(32) as usize;
            let flags: Vec<(bool, bool, bool)> = (0..n)
                .map(|l| {
                    (
                        d.strong_mask >> l & 1 == 1,
                        d.band_mask >> l & 1 == 1,
                        d.sel_mask >> l & 1 == 1,
                    )
                })
                .collect();
            tr.with(|r| r.selected_slots((base + 32 * warp) as usize, &flags));
        }
        let taken_total = band_total.min(*band_left);
        *written = written.wrapping_add(strong_total).wrapping_add(taken_total);
        *band_left = band_left.wrapping_sub(taken_total);
        base += bd;
    }
    Ok(())
}
