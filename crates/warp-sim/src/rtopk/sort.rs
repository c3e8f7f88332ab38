//! The sorted output (the CUDA kernel's `sort.cuh`, `sort_warp_rows.cu`, `sort_rows.cu`): a
//! second launch puts each row's k results, in index order from the selection, in sorted order
//! (docs/contract.md §1: the mode's value order, ties by ascending index). `sort_warp_row`: a
//! row per 8, 16 or 32 lanes, `E` results per lane in registers, a bitonic network of
//! `bitonic_step`s (`bitonic_network`). Past 1024 results (past 256 on few rows),
//! `rtopk_sort_rows`: one block per row — from 2048 positions `sort_block_row` with
//! `SORT_BLOCK_EPL` ranks a thread in registers and the steps between warps through shared
//! memory (`block_bitonic_network`), below that `bitonic_sort` over the row's ranks in shared
//! memory (`SharedRanks`), past 4096 `bitonic_sort` in place in global memory
//! (`GlobalResults`); few rows of k <= 2048 on devices that launch clusters, the rank sort
//! (`sort_rank.rs`), and of k > 4096 the merge sort (`sort_merge.rs`).

use crate::engine::error::SimError;
use crate::engine::global::Source;
use crate::engine::lanes::{FULL_MASK, Lanes};
use crate::engine::warp::{BufId, Warp};
use crate::rtopk::args::KernelArgs;
use crate::rtopk::mutant::Mutant;
use crate::rtopk::order::{ElemType, check_keys, own_key};
use crate::rtopk::plan::SortShape;
use crate::rtopk::select::{RowOut, check_input_bits, result_value, write_result};
use crate::rtopk::sort_merge::sort_merge_row;
use crate::rtopk::sort_rank::sort_rank_row;
use crate::rtopk::warp_rows::row_offset;
use rtopk_plan::plan::{SORT_BLOCK_EPL, SORT_BLOCK_REGISTERS_MAX, SORT_BLOCK_REGISTERS_MIN};

/// What a sort launch reads and writes.
#[derive(Clone, Copy)]
pub(crate) struct SortParams<'x> {
    pub(crate) a: KernelArgs,
    pub(crate) x: &'x dyn Source,
    pub(crate) out_val: BufId,
    pub(crate) out_idx: BufId,
    /// `elem_t`: the type of `x` and `out_val` (the sorts rank `own_key`).
    pub(crate) elem: ElemType,
    /// The rows' own lengths and k (docs/contract.md §5): a row sorts its first `k_i`
    /// results; its padding stays where it is.
    pub(crate) rows: crate::rtopk::args::RowData<'x>,
}

/// Where a sort writes a row's results: the row of `x` at `row_in` (the values re-read from
/// it), the row of the outputs at `off`.
fn row_out<'x>(p: &SortParams<'x>, row_in: Lanes<u64>, off: Lanes<u64>) -> RowOut<'x> {
    RowOut {
        x: p.x,
        row_off: row_in,
        out_val: p.out_val,
        out_idx: p.out_idx,
        out_off: off,
        sign: p.a.sign(),
        elem: p.elem,
    }
}

/// `sort_rank`: a result's place in sorted order as one u64 sorted ascending — key
/// descending, then index ascending.
#[inline]
pub(crate) fn sort_rank(key: u32, i: u32) -> u64 {
    u64::from(!key) << 32 | u64::from(i)
}

/// `sort_rank16`: a 16-bit row's result as one 32-bit rank for the warp sorts — its 16-bit own
/// key descending, then its position `p` among the row's results (index order, as the
/// selection writes them), ascending.
#[inline]
pub(crate) fn sort_rank16(key: u32, p: u32) -> u32 {
    (key ^ 0xffff) << 16 | p
}

/// `WARP_RANK_PAST`: the rank of a warp sort's positions past the row's k, after every result.
/// The kernel holds a 16-bit row's ranks as u32 (`warp_rank_t`); here every rank is a u64, and
/// a 16-bit row's stay below 2^32, which orders them as the kernel's u32 do.
fn warp_rank_past(elem: ElemType) -> u64 {
    if elem.packed16() { u64::from(u32::MAX) } else { sort_rank(0, u32::MAX) }
}

/// The simulator's contract check on a sort's result: `(key, index)` pairs strictly in
/// sorted order (no result lost or doubled), each naming an element of the row.
fn in_sorted_order(pairs: &[(u32, u32)], m: usize) -> bool {
    pairs.windows(2).all(|p| sort_rank(p[0].0, p[0].1) < sort_rank(p[1].0, p[1].1))
        && pairs.iter().all(|&(_, i)| (i as usize) < m)
}

/// The row's results as `(key, index)` pairs after `bitonic_sort`, looked at host-side
/// (shared ranks, or the output in place), for the contract check.
fn sorted_pairs(
    w: &Warp<'_>,
    a: &KernelArgs,
    out: &RowOut<'_>,
    base: Option<u32>,
    n: u32,
) -> Vec<(u32, u32)> {
    match base {
        Some(base) => {
            w.peek_shared(base as usize, 2 * n as usize).chunks(2).map(|r| (!r[1], r[0])).collect()
        }
        None => {
            let off = out.out_off.lane(0);
            let vals = w.peek_global(out.out_val, off, u64::from(n));
            let idx = w.peek_global(out.out_idx, off, u64::from(n));
            vals.iter().zip(&idx).map(|(&v, &i)| (own_key(a, out.elem, v, a.sign()), i)).collect()
        }
    }
}

/// The sorted row's contract check after `bitonic_sort`, by the row's first thread once the
/// network is done.
fn check_sorted_row(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    out: &RowOut<'_>,
    base: Option<u32>,
    n: u32,
    first: bool,
) -> Result<(), SimError> {
    if !(w.checks() && first) {
        return Ok(());
    }
    let pairs = sorted_pairs(w, a, out, base, n);
    w.check_that(in_sorted_order(&pairs, a.m), "rtopk_sort_rows: the results in sorted order")
}

/// `ascending`: whether position `E sub + e` lies in an ascending block of the network's
/// blocks of `size` positions (`p & size == 0`).
fn ascending(sub: &Lanes<u32>, e_count: u32, size: u32, e: u32) -> Lanes<bool> {
    if size >= e_count {
        sub.map(|s| s & (size / e_count) == 0)
    } else {
        Lanes::splat(e & size == 0)
    }
}

/// `bitonic_step`: one step of the bitonic network over a row's `LANES E` positions (position
/// `p = E sub + e`, `sub` the lane's place among the row's lanes `lanes`): pairs
/// `(p, p ^ stride)`, ascending in sorted order where `p & size == 0`, descending elsewhere;
/// partners closer than E are in the lane's own registers, farther ones `stride / E` lanes
/// apart in the row's lanes. Each result is one rank (`sort_rank`).
fn bitonic_step(
    w: &mut Warp<'_>,
    rank: &mut [Lanes<u64>],
    (sub, lanes): (&Lanes<u32>, u32),
    size: u32,
    stride: u32,
) -> Result<(), SimError> {
    let e_count = rank.len() as u32;
    if stride >= e_count {
        let d = stride / e_count;
        // the lower position of an ascending pair keeps the earlier result
        let lower = sub.map(|s| s & d == 0);
        let keeps_first = lower.zip(&ascending(sub, e_count, size, 0), |lo, up| lo == up);
        for r in rank.iter_mut() {
            let other = w.shfl_xor_sync(lanes, r, d, 32, "bitonic_step: shfl_xor(rank)")?;
            let take = Lanes::from_fn(|l| (other.lane(l) < r.lane(l)) == keeps_first.lane(l));
            *r = Lanes::select(&take, &other, r);
        }
        return Ok(());
    }
    let s = stride as usize;
    for e in 0..rank.len() {
        if e & s != 0 {
            continue;
        }
        let up = ascending(sub, e_count, size, e as u32);
        let (a, b) = (rank[e], rank[e + s]);
        let swap = Lanes::from_fn(|l| (b.lane(l) < a.lane(l)) == up.lane(l));
        rank[e] = Lanes::select(&swap, &b, &a);
        rank[e + s] = Lanes::select(&swap, &a, &b);
    }
    Ok(())
}

/// `bitonic_network`: `bitonic_step` for size = 2, 4, ... `LANES E` and stride = size / 2
/// ... 1 (the CUDA kernel unrolls the steps up to `SORT_UNROLLED_MAX` positions with its
/// `bitonic_merge`, a template recursion: the same steps in the same order).
fn bitonic_network(
    w: &mut Warp<'_>,
    rank: &mut [Lanes<u64>],
    (sub, lanes, width): (&Lanes<u32>, u32, u32),
) -> Result<(), SimError> {
    let n = width * rank.len() as u32;
    let mut size = 2;
    while size <= n {
        let mut stride = size / 2;
        while stride > 0 {
            bitonic_step(w, rank, (sub, lanes), size, stride)?;
            stride /= 2;
        }
        size *= 2;
    }
    Ok(())
}

/// `load_results`: a row's `k <= LANES E` results (index order) as ranks — register `e` of
/// the row's lane `sub` takes result `j = e LANES + sub`: on a 16-bit row its key and position
/// (`sort_rank16`; the index is read after the network), else its key and index
/// (`sort_rank`); positions past k hold `WARP_RANK_PAST`, so the full network runs.
async fn load_results(
    w: &mut Warp<'_>,
    p: &SortParams<'_>,
    (off, k): (&Lanes<u64>, u32),
    (sub, width): (&Lanes<u32>, u32),
    rank: &mut [Lanes<u64>],
) -> Result<(), SimError> {
    let a = &p.a;
    let past = warp_rank_past(p.elem);
    for (e, r) in rank.iter_mut().enumerate() {
        let j = sub.map(|s| e as u32 * width + s);
        let inside = j.map(|j| j < k);
        // BUG (SortWarpReadsPastK): every position is loaded.
        let load = if a.has(Mutant::SortWarpReadsPastK) { Lanes::splat(true) } else { inside };
        let saved = w.push_active(&load, "load_results: j < k")?;
        let at = w.add_u64(off, &j.map(u64::from), "load_results: val + j")?;
        let v = w.ld_global(p.out_val, &at, "load_results: val[j]").await?;
        let kv = v.map(|v| own_key(a, p.elem, v, a.sign()));
        let mask = inside.mask() & w.active_mask();
        check_keys(w, a.mode, p.elem, &v, &kv, mask, "sort: own_key is docs/contract.md §1's key")?;
        let ranked = if p.elem.packed16() {
            kv.zip(&j, |key, j| u64::from(sort_rank16(key, j)))
        } else {
            let i = w.ld_global(p.out_idx, &at, "load_results: idx[j]").await?;
            kv.zip(&i, sort_rank)
        };
        w.pop_active(saved);
        *r = Lanes::select(&inside, &ranked, &Lanes::splat(past));
    }
    Ok(())
}

/// `sorted_results`: a lane's E sorted results (positions `first .. first + E` below k) as
/// `(key, index, value)`. From a 64-bit rank: its key and index, the value by `result_value`.
/// From a 16-bit row's rank: its key, and the value and index at its position among the row's
/// results, read back from the output (before any lane of the row writes over them: the
/// caller's `__syncwarp`).
async fn sorted_results(
    w: &mut Warp<'_>,
    out: &RowOut<'_>,
    rank: &[Lanes<u64>],
    (first, k): (&Lanes<u32>, u32),
) -> Result<Vec<(Lanes<u32>, Lanes<u32>, Lanes<u32>)>, SimError> {
    let mut got = Vec::with_capacity(rank.len());
    for (q, r) in rank.iter().enumerate() {
        let below = first.map(|f| f + (q as u32) < k);
        let saved = w.push_active(&below, "sorted_results: first + e < k")?;
        let (key, ix, v) = if out.elem.packed16() {
            let key = r.map(|r| ((r as u32) >> 16) ^ 0xffff);
            let pos = r.map(|r| r & 0xffff);
            let at = w.add_u64(&out.out_off, &pos, "sorted_results: val + p")?;
            let mut v = Lanes::splat(0u32);
            let got_v = w.ld_global(out.out_val, &at, "sorted_results: val[p]").await?;
            w.assign(&mut v, &got_v);
            let mut ix = Lanes::splat(0u32);
            let got_i = w.ld_global(out.out_idx, &at, "sorted_results: idx[p]").await?;
            w.assign(&mut ix, &got_i);
            let src = w.add_u64(&out.row_off, &ix.map(u64::from), "sorted_results: row_in + i")?;
            let label =
                "sorted_results: val[p] is the input's bits at idx[p] (docs/contract.md §1)";
            check_input_bits(w, out.x, &src, &v, label)?;
            (key, ix, v)
        } else {
            let key = r.map(|r| !((r >> 32) as u32));
            let ix = r.map(|r| r as u32);
            let mut v = Lanes::splat(0u32);
            let got_v = result_value(w, out, &ix, &key).await?;
            w.assign(&mut v, &got_v);
            (key, ix, v)
        };
        w.pop_active(saved);
        got.push((key, ix, v));
    }
    Ok(got)
}

/// `row_aligned16`: whether every row of `width` results of `bytes` bytes starts 16-byte
/// aligned (the simulator's buffers start so).
fn row_aligned16(width: u64, bytes: u64) -> bool {
    (width * bytes) % 16 == 0
}

/// `store_results`: a lane's E sorted results at positions `first .. first + E` below k,
/// 16 bytes at a time where `vec` and a whole group lies below k, else one at a time.
async fn store_results(
    w: &mut Warp<'_>,
    (buf, bytes): (BufId, u32),
    (off, first, k): (&Lanes<u64>, &Lanes<u32>, u32),
    vec: bool,
    vals: &[Lanes<u32>],
) -> Result<(), SimError> {
    let per = (16 / bytes) as usize;
    let at = |w: &mut Warp<'_>, q: usize| {
        let p = first.map(|f| u64::from(f) + q as u64);
        w.add_u64(off, &p, "store_results: out + p")
    };
    if vals.len() % per == 0 && vec {
        for g in 0..vals.len() / per {
            let whole = first.map(|f| f + ((g + 1) * per) as u32 <= k);
            let saved = w.push_active(&whole, "store_results: p + PER <= k")?;
            let addr = at(w, g * per)?;
            let group: Vec<Lanes<u64>> =
                vals[g * per..(g + 1) * per].iter().map(|v| v.map(u64::from)).collect();
            w.st_global_v(buf, &addr, &group, "store_results: 16 bytes out[p ..]").await?;
            w.pop_active(saved);
            let part = whole.map(|x| !x);
            let saved = w.push_active(&part, "store_results: else")?;
            for (q, v) in vals.iter().enumerate().skip(g * per).take(per) {
                let below = first.map(|f| f + (q as u32) < k);
                let inner = w.push_active(&below, "store_results: p + j < k")?;
                let addr = at(w, q)?;
                w.st_global(buf, &addr, v, "store_results: out[p + j]").await?;
                w.pop_active(inner);
            }
            w.pop_active(saved);
        }
        return Ok(());
    }
    for (q, v) in vals.iter().enumerate() {
        let below = first.map(|f| f + (q as u32) < k);
        let saved = w.push_active(&below, "store_results: first + e < k")?;
        let addr = at(w, q)?;
        w.st_global(buf, &addr, v, "store_results: out[first + e]").await?;
        w.pop_active(saved);
    }
    Ok(())
}

/// `sort_warp_row<E, LANES>`: a row's `k <= LANES E` results sorted by its `LANES` lanes in
/// registers — `load_results`, the network (`bitonic_network`), then lane `sub` writes
/// positions `E sub .. E sub + E` (`result_value`, `store_results`).
pub(crate) async fn sort_warp_row(
    w: &mut Warp<'_>,
    p: &SortParams<'_>,
    (width, e): (u32, usize),
) -> Result<(), SimError> {
    let a = &p.a;
    let lane = w.lane_id();
    let sub = lane.map(|l| l % width);
    let tid = w.thread_idx();
    let block = u64::from(w.block_idx()) * u64::from(w.block_dim());
    let row = tid.map(|t| (block + u64::from(t)) / u64::from(width));
    let row_id = w.uniform(&row, "sort_warp_row: row_id")?;
    if row_id >= a.n as u64 {
        w.exit(); // row-uniform: a row's lanes leave together
        return Ok(());
    }
    let seg = lane
        .zip(&sub, |l, s| if width == 32 { FULL_MASK } else { ((1u32 << width) - 1) << (l - s) });
    let lanes = w.uniform(&seg, "sort_warp_row: lanes")?;
    let k = a.row_lengths(&p.rows, row_id).k as u32; // the row's own k
    let off = row_offset(w, a, row_id, a.k as u64, "sort_warp_row: row_id * (u64)width")?;
    let mut rank = vec![Lanes::splat(0u64); e];
    load_results(w, p, (&off, k), (&sub, width), &mut rank).await?;
    bitonic_network(w, &mut rank, (&sub, lanes, width))?;
    let first = w.mul_u32(&sub, &Lanes::splat(e as u32), "sort_warp_row: first = sub * E")?;
    let row_in = row_offset(w, a, row_id, a.m as u64, "sort_warp_row: row_id * (u64)m")?;
    let out = row_out(p, row_in, off);
    let got = sorted_results(w, &out, &rank, (&first, k)).await?;
    if w.checks() {
        let pairs: Vec<(u32, u32)> = (0..32)
            .filter(|&l| lanes >> l & 1 == 1)
            .flat_map(|l| (0..e).map(move |q| (l, q)))
            .filter(|&(l, q)| first.lane(l) + (q as u32) < k)
            .map(|(l, q)| (got[q].0.lane(l), got[q].1.lane(l)))
            .collect();
        w.check_that(in_sorted_order(&pairs, a.m), "sort_warp_row: the results in sorted order")?;
    }
    if p.elem.packed16() {
        // the row's results are read back in place: all of them before any write
        w.syncwarp(lanes, "sort_warp_row: __syncwarp(lanes) before the stores").await?;
    }
    let ix: Vec<Lanes<u32>> = got.iter().map(|g| g.1).collect();
    let vals: Vec<Lanes<u32>> = got.iter().map(|g| g.2).collect();
    let bytes = p.elem.bytes() as u32;
    let width_k = a.k as u64;
    let (idx_vec, val_vec) = if a.has(Mutant::SortStoresUnaligned) {
        (true, true) // BUG: 16-byte stores whatever the rows' alignment.
    } else {
        (row_aligned16(width_k, 4), row_aligned16(width_k, bytes.into()))
    };
    store_results(w, (p.out_idx, 4), (&off, &first, k), idx_vec, &ix).await?;
    store_results(w, (p.out_val, bytes), (&off, &first, k), val_vec, &vals).await
}

/// Where `bitonic_sort` and `shared_step` keep a row's results: `order(i, j)` puts the
/// smaller rank at position `i`, in the active lanes.
trait Ranks {
    async fn order(&self, w: &mut Warp<'_>, i: &Lanes<u32>, j: &Lanes<u32>)
    -> Result<(), SimError>;
}

/// `SharedRanks`: the row's ranks in shared memory, two words each (low, high) from `base`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SharedRanks {
    pub(crate) base: u32,
}

impl Ranks for SharedRanks {
    async fn order(
        &self,
        w: &mut Warp<'_>,
        i: &Lanes<u32>,
        j: &Lanes<u32>,
    ) -> Result<(), SimError> {
        let at = |v: &Lanes<u32>, h: u32| v.map(|v| self.base + 2 * v + h);
        let ra = rank_of(
            w.ld_shared(&at(i, 0), "SharedRanks: a = r[i]").await?,
            w.ld_shared(&at(i, 1), "SharedRanks: a = r[i]").await?,
        );
        let rb = rank_of(
            w.ld_shared(&at(j, 0), "SharedRanks: b = r[j]").await?,
            w.ld_shared(&at(j, 1), "SharedRanks: b = r[j]").await?,
        );
        let (lo, hi) = (ra.zip(&rb, u64::min), ra.zip(&rb, u64::max));
        w.st_shared(&at(i, 0), &lo.map(|r| r as u32), "SharedRanks: r[i] = min(a, b)").await?;
        w.st_shared(&at(i, 1), &lo.map(|r| (r >> 32) as u32), "SharedRanks: r[i] = min(a, b)")
            .await?;
        w.st_shared(&at(j, 0), &hi.map(|r| r as u32), "SharedRanks: r[j] = max(a, b)").await?;
        w.st_shared(&at(j, 1), &hi.map(|r| (r >> 32) as u32), "SharedRanks: r[j] = max(a, b)").await
    }
}

/// `GlobalResults`: the row's results in place in the output (rows too long for shared
/// memory), ranks recomputed from (value, index) at each compare.
#[derive(Clone, Copy)]
struct GlobalResults<'x> {
    out: RowOut<'x>,
    a: KernelArgs,
}

impl Ranks for GlobalResults<'_> {
    async fn order(
        &self,
        w: &mut Warp<'_>,
        i: &Lanes<u32>,
        j: &Lanes<u32>,
    ) -> Result<(), SimError> {
        let (out, a) = (&self.out, &self.a);
        let ai = w.add_u64(&out.out_off, &i.map(u64::from), "GlobalResults: val + i")?;
        let aj = w.add_u64(&out.out_off, &j.map(u64::from), "GlobalResults: val + j")?;
        let vi = w.ld_global(out.out_val, &ai, "GlobalResults: __ldcg(val + i)").await?;
        let vj = w.ld_global(out.out_val, &aj, "GlobalResults: __ldcg(val + j)").await?;
        let ii = w.ld_global(out.out_idx, &ai, "GlobalResults: __ldcg(idx + i)").await?;
        let ij = w.ld_global(out.out_idx, &aj, "GlobalResults: __ldcg(idx + j)").await?;
        let key = |v: &Lanes<u32>| v.map(|v| own_key(a, out.elem, v, a.sign()));
        let (ki, kj) = (key(&vi), key(&vj));
        let swap = Lanes::from_fn(|l| {
            sort_rank(kj.lane(l), ij.lane(l)) < sort_rank(ki.lane(l), ii.lane(l))
        });
        let saved = w.push_active(&swap, "GlobalResults: rank(j) < rank(i)")?;
        w.st_global(out.out_val, &ai, &vj, "GlobalResults: __stcg(val + i)").await?;
        w.st_global(out.out_val, &aj, &vi, "GlobalResults: __stcg(val + j)").await?;
        w.st_global(out.out_idx, &ai, &ij, "GlobalResults: __stcg(idx + i)").await?;
        w.st_global(out.out_idx, &aj, &ii, "GlobalResults: __stcg(idx + j)").await?;
        w.pop_active(saved);
        Ok(())
    }
}

/// A rank from its two shared words (low, high).
pub(crate) fn rank_of(lo: Lanes<u32>, hi: Lanes<u32>) -> Lanes<u64> {
    lo.zip(&hi, |lo, hi| u64::from(hi) << 32 | u64::from(lo))
}

/// Rank `i` (a u64) into shared words `base + 2 i` (low) and `base + 2 i + 1` (high), in the
/// active lanes.
pub(crate) async fn store_rank(
    w: &mut Warp<'_>,
    base: u32,
    i: &Lanes<u32>,
    r: &Lanes<u64>,
    label: &'static str,
) -> Result<(), SimError> {
    w.st_shared(&i.map(|i| base + 2 * i), &r.map(|r| r as u32), label).await?;
    w.st_shared(&i.map(|i| base + 2 * i + 1), &r.map(|r| (r >> 32) as u32), label).await
}

/// Rank `i` from shared words `base + 2 i`, `base + 2 i + 1`, in the active lanes.
pub(crate) async fn load_rank(
    w: &mut Warp<'_>,
    base: u32,
    i: &Lanes<u32>,
    label: &'static str,
) -> Result<Lanes<u64>, SimError> {
    let lo = w.ld_shared(&i.map(|i| base + 2 * i), label).await?;
    let hi = w.ld_shared(&i.map(|i| base + 2 * i + 1), label).await?;
    Ok(rank_of(lo, hi))
}

/// The ranks of the row's results `j` (index order, from `off`) in the active lanes:
/// `sort_rank(own_key(val[j]), idx[j])`, each key checked against docs/contract.md §1's.
pub(crate) async fn result_ranks(
    w: &mut Warp<'_>,
    p: &SortParams<'_>,
    off: &Lanes<u64>,
    j: &Lanes<u32>,
    label: &'static str,
) -> Result<Lanes<u64>, SimError> {
    let a = &p.a;
    let addr = w.add_u64(off, &j.map(u64::from), label)?;
    let v = w.ld_global(p.out_val, &addr, label).await?;
    let ix = w.ld_global(p.out_idx, &addr, label).await?;
    let key = v.map(|v| own_key(a, p.elem, v, a.sign()));
    let check = "sort: own_key is docs/contract.md §1's key";
    check_keys(w, a.mode, p.elem, &v, &key, w.active_mask(), check)?;
    Ok(key.zip(&ix, sort_rank))
}

/// `bitonic_sort`: sorts positions `[0, n)` ascending as if the array were `pow2` long with
/// +infinity past n — the bitonic network in its flip form (every compare-exchange puts the
/// smaller rank at the lower position, so padding never moves and pairs reaching past n are
/// skipped). Thread `t` of `threads` takes every threads-th pair; every thread reaches each
/// barrier.
async fn bitonic_sort<S: Ranks>(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    s: &S,
    n: u32,
    pow2: u32,
    t: &Lanes<u32>,
    threads: u32,
) -> Result<(), SimError> {
    let pairs = pow2 / 2;
    let mut size = 2;
    while size <= pow2 {
        let half = size / 2;
        each_pair(w, s, t, threads, pairs, n, |c| {
            let off = c & (half - 1);
            let i = (c - off) * 2 + off;
            (i, i + size - 1 - 2 * off) // its mirror in the block
        })
        .await?;
        if !a.has(Mutant::BitonicMissingBarrier) {
            w.syncthreads("bitonic_sort: __syncthreads() (after the flip)").await?;
        }
        let mut stride = size / 4;
        while stride > 0 {
            each_pair(w, s, t, threads, pairs, n, |c| {
                let off = c & (stride - 1);
                let i = (c - off) * 2 + off;
                (i, i + stride)
            })
            .await?;
            w.syncthreads("bitonic_sort: __syncthreads()").await?;
            stride /= 2;
        }
        size *= 2;
    }
    Ok(())
}

/// `for (c = t; c < pairs; c += threads) { (i, j) = pair(c); if (j < n) s.order(i, j); }`
async fn each_pair<S: Ranks>(
    w: &mut Warp<'_>,
    s: &S,
    t: &Lanes<u32>,
    threads: u32,
    pairs: u32,
    n: u32,
    pair: impl Fn(u32) -> (u32, u32),
) -> Result<(), SimError> {
    let mut c = *t;
    let mut base = 0;
    while base < pairs {
        let (i, j) = (c.map(|c| pair(c).0), c.map(|c| pair(c).1));
        let go = c.zip(&j, |c, j| c < pairs && j < n);
        let saved = w.push_active(&go, "bitonic_sort: c < pairs && j < n")?;
        s.order(w, &i, &j).await?;
        w.pop_active(saved);
        c = c.map(|c| c + threads);
        base += threads;
    }
    Ok(())
}

/// Positions of one warp's registers in the block sort (`SORT_BLOCK_SPAN`): network steps
/// whose partners are closer run in a warp.
const SORT_BLOCK_SPAN: u32 = 32 * SORT_BLOCK_EPL as u32;

/// The shared words of rank word `h` (0 low, 1 high) of thread `t`'s position `E t + e`: word
/// `e threads + t` of the ranks (a warp's accesses of one register are consecutive words).
fn block_rank_words(s: SharedRanks, t: &Lanes<u32>, threads: u32, e: u32, h: u32) -> Lanes<u32> {
    t.map(|t| s.base + 2 * (e * threads + t) + h)
}

/// `store_block_ranks`: thread `t`'s ranks into shared memory, position `E t + e` at word
/// `e threads + t`.
async fn store_block_ranks(
    w: &mut Warp<'_>,
    s: SharedRanks,
    t: &Lanes<u32>,
    threads: u32,
    rank: &[Lanes<u64>],
) -> Result<(), SimError> {
    for (e, r) in rank.iter().enumerate() {
        let label = "store_block_ranks: s.r[e * threads + t] = rank[e]";
        w.st_shared(&block_rank_words(s, t, threads, e as u32, 0), &r.map(|r| r as u32), label)
            .await?;
        let hi = r.map(|r| (r >> 32) as u32);
        w.st_shared(&block_rank_words(s, t, threads, e as u32, 1), &hi, label).await?;
    }
    Ok(())
}

/// `load_block_ranks`: thread `t`'s ranks back from shared memory (`store_block_ranks`' words).
async fn load_block_ranks(
    w: &mut Warp<'_>,
    s: SharedRanks,
    t: &Lanes<u32>,
    threads: u32,
    rank: &mut [Lanes<u64>],
) -> Result<(), SimError> {
    for (e, r) in rank.iter_mut().enumerate() {
        let label = "load_block_ranks: rank[e] = s.r[e * threads + t]";
        let lo = w.ld_shared(&block_rank_words(s, t, threads, e as u32, 0), label).await?;
        let hi = w.ld_shared(&block_rank_words(s, t, threads, e as u32, 1), label).await?;
        *r = rank_of(lo, hi);
    }
    Ok(())
}

/// `shared_step`: one step of the bitonic network whose partners lie in different warps
/// (`stride >= SORT_BLOCK_SPAN`): pairs `(p, p ^ stride)` of positions `p = E q + e`, at words
/// `e threads + q` and `e threads + (q ^ stride / E)`, ascending in sorted order where
/// `p & size == 0`; thread `t` takes every threads-th pair, consecutive pairs at consecutive
/// words.
async fn shared_step(
    w: &mut Warp<'_>,
    s: SharedRanks,
    t: &Lanes<u32>,
    threads: u32,
    (size, stride): (u32, u32),
) -> Result<(), SimError> {
    let epl = SORT_BLOCK_EPL as u32;
    let (half, d) = (threads / 2, stride / epl);
    let mut c = *t;
    let mut base = 0;
    while base < epl * half {
        let q = c.map(|c| {
            let cc = c % half;
            let off = cc & (d - 1);
            (cc - off) * 2 + off
        });
        let i = c.zip(&q, |c, q| (c / half) * threads + q);
        let j = i.map(|i| i + d);
        let up = q.map(|q| q & (size / epl) == 0);
        let (lo, hi) = (Lanes::select(&up, &i, &j), Lanes::select(&up, &j, &i));
        s.order(w, &lo, &hi).await?;
        c = c.map(|c| c + threads);
        base += threads;
    }
    Ok(())
}

/// `block_bitonic_network`: the block sort's network over `pow2` positions, `SORT_BLOCK_EPL` a
/// thread (position `E t + e`): the steps whose partners lie within a warp's
/// `SORT_BLOCK_SPAN` positions in registers and shuffles (`bitonic_network` up to the span,
/// then `bitonic_step`), the others in shared memory between barriers (`shared_step`).
pub(crate) async fn block_bitonic_network(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    s: SharedRanks,
    (t, threads, pow2): (&Lanes<u32>, u32, u32),
    rank: &mut [Lanes<u64>],
) -> Result<(), SimError> {
    bitonic_network(w, rank, (t, FULL_MASK, 32))?;
    let mut size = 2 * SORT_BLOCK_SPAN;
    while size <= pow2 {
        store_block_ranks(w, s, t, threads, rank).await?;
        w.syncthreads("block_bitonic_network: __syncthreads() (after the stores)").await?;
        let mut stride = size / 2;
        while stride >= SORT_BLOCK_SPAN {
            shared_step(w, s, t, threads, (size, stride)).await?;
            if !a.has(Mutant::BitonicMissingBarrier) {
                w.syncthreads("block_bitonic_network: __syncthreads() (after a shared step)")
                    .await?;
            }
            stride /= 2;
        }
        load_block_ranks(w, s, t, threads, rank).await?;
        while stride > 0 {
            bitonic_step(w, rank, (t, FULL_MASK), size, stride)?;
            stride /= 2;
        }
        size *= 2;
    }
    Ok(())
}

/// The simulator's contract check after the block sort's network: the active lanes' ranks
/// at positions `first + e` below `n`, as `(key, index)` pairs, in sorted order.
pub(crate) fn check_warp_sorted(
    w: &mut Warp<'_>,
    m: usize,
    (rank, first, n): (&[Lanes<u64>], &Lanes<u32>, u32),
    label: &'static str,
) -> Result<(), SimError> {
    if !w.checks() {
        return Ok(());
    }
    let pairs: Vec<(u32, u32)> = (0..32)
        .filter(|&l| w.active_mask() >> l & 1 == 1)
        .flat_map(|l| (0..rank.len()).map(move |e| (l, e)))
        .filter(|&(l, e)| first.lane(l) + (e as u32) < n)
        .map(|(l, e)| (!((rank[e].lane(l) >> 32) as u32), rank[e].lane(l) as u32))
        .collect();
    w.check_that(in_sorted_order(&pairs, m), label)
}

/// `sort_block_row`: a row's ranks in registers — register `e` of thread `t` takes result
/// `e threads + t` (positions past n hold the rank that sorts after every result) — the
/// network (`block_bitonic_network`), then thread `t` writes positions `E t .. E t + E` below
/// n. `pow2 >= SORT_BLOCK_REGISTERS_MIN > SORT_BLOCK_SPAN`, so the network's barriers come
/// between every thread's loads of the row's results and any thread's writes over them.
async fn sort_block_row(
    w: &mut Warp<'_>,
    p: &SortParams<'_>,
    s: SharedRanks,
    out: &RowOut<'_>,
    (n, pow2, t, threads): (u32, u32, &Lanes<u32>, u32),
) -> Result<(), SimError> {
    let a = &p.a;
    let epl = SORT_BLOCK_EPL as u32;
    let mut rank = vec![Lanes::splat(sort_rank(0, u32::MAX)); SORT_BLOCK_EPL];
    for (e, r) in rank.iter_mut().enumerate() {
        let j = t.map(|t| e as u32 * threads + t);
        let saved = w.push_active(&j.map(|j| j < n), "sort_block_row: j < n")?;
        let got = result_ranks(w, p, &out.out_off, &j, "sort_block_row: val[j], idx[j]").await?;
        w.assign(r, &got);
        w.pop_active(saved);
    }
    block_bitonic_network(w, a, s, (t, threads, pow2), &mut rank).await?;
    let first = t.map(|t| t * epl);
    let label = "sort_block_row: the warp's results in sorted order";
    check_warp_sorted(w, a.m, (&rank, &first, n), label)?;
    for (e, r) in rank.iter().enumerate() {
        let pos = first.map(|f| f + e as u32);
        let saved = w.push_active(&pos.map(|p| p < n), "sort_block_row: p < n")?;
        let key = r.map(|r| !((r >> 32) as u32));
        write_result(w, out, &pos, &r.map(|r| r as u32), &key).await?;
        w.pop_active(saved);
    }
    Ok(())
}

/// `rtopk_sort_rows`: one block per row (`row_threads` threads per row), the row's ranks in
/// registers and shared memory from `SORT_BLOCK_REGISTERS_MIN` to `SORT_BLOCK_REGISTERS_MAX`
/// positions (`sort_block_row`), in shared memory otherwise (`bitonic_sort` over
/// `SharedRanks`), or sorted in place in global memory; where `parts > 1`, the rank sort
/// (`sort_rank_row`) or the merge sort (`sort_merge_row`): block `b` is block `b % parts` of
/// row `b / parts`'s cluster.
pub(crate) async fn rtopk_sort_rows(
    w: &mut Warp<'_>,
    p: &SortParams<'_>,
    shape: SortShape,
) -> Result<(), SimError> {
    let a = &p.a;
    if shape.parts > 1 {
        let row = u64::from(w.block_idx() / shape.parts);
        // a row past the end sorts nothing but reaches the barriers
        let n = if row < a.n as u64 { a.row_lengths(&p.rows, row).k as u32 } else { 0 };
        let row_id = if row < a.n as u64 { row } else { 0 };
        let off = row_offset(w, a, row_id, a.k as u64, "rtopk_sort_rows: row * (u64)k")?;
        let part = w.block_idx() % shape.parts;
        if shape.merges {
            let row_in = row_offset(w, a, row_id, a.m as u64, "rtopk_sort_rows: row * (u64)m")?;
            let out = row_out(p, row_in, off);
            let per = shape.pow2 / shape.parts;
            let s = SharedRanks { base: 0 };
            return sort_merge_row(w, p, s, &out, (n, per, shape.parts, part)).await;
        }
        return sort_rank_row(w, p, &off, (n, shape.parts, part)).await;
    }
    let tid = w.thread_idx();
    let rt = shape.row_threads;
    let slot = w.uniform(&tid.map(|t| t / rt), "rtopk_sort_rows: slot")?;
    let t = tid.map(|x| x % rt);
    let row = u64::from(w.block_idx()) * u64::from(w.block_dim() / rt) + u64::from(slot);
    // rows past the end still reach every barrier; a row sorts its own k (row_lengths)
    let n = if row < a.n as u64 { a.row_lengths(&p.rows, row).k as u32 } else { 0 };
    let row_id = if row < a.n as u64 { row } else { 0 };
    let off = row_offset(w, a, row_id, a.k as u64, "rtopk_sort_rows: row_id * (u64)k")?;
    let row_in = row_offset(w, a, row_id, a.m as u64, "rtopk_sort_rows: row_id * (u64)m")?;
    let out = row_out(p, row_in, off);
    let first = t.lane(w.active_mask().trailing_zeros() as usize % 32) == 0;
    if !shape.in_shared {
        let store = GlobalResults { out, a: *a };
        bitonic_sort(w, a, &store, n, shape.pow2, &t, rt).await?;
        return check_sorted_row(w, a, &out, None, n, first);
    }
    let base = 2 * slot * shape.pow2;
    let registers = SORT_BLOCK_REGISTERS_MIN as u32..=SORT_BLOCK_REGISTERS_MAX as u32;
    if registers.contains(&shape.pow2) {
        return sort_block_row(w, p, SharedRanks { base }, &out, (n, shape.pow2, &t, rt)).await;
    }
    let mut i = t;
    let mut at = 0;
    while at < n {
        let go = i.map(|i| i < n);
        let saved = w.push_active(&go, "rtopk_sort_rows: i < n")?;
        let r = result_ranks(w, p, &off, &i, "rtopk_sort_rows: val[i], idx[i]").await?;
        store_rank(w, base, &i, &r, "rtopk_sort_rows: r[i] = rank").await?;
        w.pop_active(saved);
        i = i.map(|i| i + rt);
        at += rt;
    }
    w.syncthreads("rtopk_sort_rows: __syncthreads()").await?;
    bitonic_sort(w, a, &SharedRanks { base }, n, shape.pow2, &t, rt).await?;
    check_sorted_row(w, a, &out, Some(base), n, first)?;
    let mut i = t;
    let mut at = 0;
    while at < n {
        let go = i.map(|i| i < n);
        let saved = w.push_active(&go, "rtopk_sort_rows: i < n")?;
        let r = load_rank(w, base, &i, "rtopk_sort_rows: r = r[i]").await?;
        let key = r.map(|r| !((r >> 32) as u32));
        write_result(w, &out, &i, &r.map(|r| r as u32), &key).await?;
        w.pop_active(saved);
        i = i.map(|i| i + rt);
        at += rt;
    }
    Ok(())
}
