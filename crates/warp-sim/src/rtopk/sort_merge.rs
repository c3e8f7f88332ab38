//! The merge sort (the CUDA kernel's `sort_merge.cuh`; docs/kernel.md, "The merge sort"): a
//! row's k results, in index order from the selection, put in sorted order by a thread-block
//! cluster of `parts` blocks. Block `part` sorts its run — results `part per ..
//! part per + per`, `per = pow2 / parts` — in registers with the block sort's network
//! (`block_bitonic_network`) and writes it back in place; after the cluster's barrier each of
//! its results goes to its place in the run plus, for every other run, how many of that run's
//! ranks lie below its own (distinct: so are the indices) — the run loaded into shared memory,
//! then a binary search (`ranks_below`) — and after a second barrier, which every block's reads
//! of every run come before, each result is written there.

use crate::engine::error::SimError;
use crate::engine::lanes::Lanes;
use crate::engine::warp::Warp;
use crate::rtopk::mutant::Mutant;
use crate::rtopk::select::{RowOut, write_result};
use crate::rtopk::sort::{
    SharedRanks, SortParams, block_bitonic_network, check_warp_sorted, load_rank, result_ranks,
    sort_rank, store_rank,
};
use rtopk_plan::plan::SORT_BLOCK_EPL;

/// `run_length`: the results of run `q` of a row of `n` over runs of `per`.
fn run_length(n: u32, per: u32, q: u32) -> u32 {
    let start = q * per;
    if n > start { (n - start).min(per) } else { 0 }
}

/// `load_run`: the `len` ranks of the run from `start` (sorted by its block before the
/// cluster's barrier) from the row's values and indices into the shared ranks, ascending.
async fn load_run(
    w: &mut Warp<'_>,
    p: &SortParams<'_>,
    out_off: &Lanes<u64>,
    (start, len): (u32, u32),
    s: SharedRanks,
) -> Result<(), SimError> {
    let (tid, threads) = (w.thread_idx(), w.block_dim());
    let mut i = tid;
    let mut at = 0;
    while at < len {
        let saved = w.push_active(&i.map(|i| i < len), "load_run: i < len")?;
        let j = i.map(|i| start + i);
        let r = result_ranks(w, p, out_off, &j, "load_run: val[i], idx[i]").await?;
        store_rank(w, s.base, &i, &r, "load_run: ranks[i] = sort_rank(...)").await?;
        w.pop_active(saved);
        i = i.map(|i| i + threads);
        at += threads;
    }
    Ok(())
}

/// `ranks_below`: how many of the `len` ascending shared ranks lie below each lane's `mine`
/// (a binary search, one shared load a step).
async fn ranks_below(
    w: &mut Warp<'_>,
    s: SharedRanks,
    len: u32,
    mine: &Lanes<u64>,
) -> Result<Lanes<u32>, SimError> {
    let (mut lo, mut hi) = (Lanes::splat(0u32), Lanes::splat(len));
    loop {
        let go = lo.zip(&hi, |l, h| l < h);
        if go.mask() & w.active_mask() == 0 {
            return Ok(lo);
        }
        let saved = w.push_active(&go, "ranks_below: lo < hi")?;
        let mid = lo.zip(&hi, |l, h| (l + h) >> 1);
        let r = load_rank(w, s.base, &mid, "ranks_below: ranks[mid]").await?;
        let active = w.active_mask();
        let on = |l: usize| active >> l & 1 == 1;
        let below = Lanes::from_fn(|l| r.lane(l) < mine.lane(l));
        lo = Lanes::from_fn(|l| if on(l) && below.lane(l) { mid.lane(l) + 1 } else { lo.lane(l) });
        hi = Lanes::from_fn(|l| if on(l) && !below.lane(l) { mid.lane(l) } else { hi.lane(l) });
        w.pop_active(saved);
    }
}

/// `sort_merge_row`: block `part` of the row's cluster (`per / SORT_BLOCK_EPL` threads) sorts
/// its run — register `e` of thread `t` takes the run's result `e threads + t`, positions past
/// the run hold the rank that sorts after every result — and thread `t` writes the run's
/// positions `E t .. E t + E` back in place (no other block reads them before the barrier).
/// Then, each other run in turn in shared memory, it counts the ranks below each of its
/// results (`ranks_below`), and after the second barrier writes each at its run position plus
/// those counts.
pub(crate) async fn sort_merge_row(
    w: &mut Warp<'_>,
    p: &SortParams<'_>,
    s: SharedRanks,
    out: &RowOut<'_>,
    (n, per, parts, part): (u32, u32, u32, u32),
) -> Result<(), SimError> {
    let a = &p.a;
    let (t, threads) = (w.thread_idx(), w.block_dim());
    let epl = SORT_BLOCK_EPL as u32;
    let (base, len) = (part * per, run_length(n, per, part));
    let mut rank = vec![Lanes::splat(sort_rank(0, u32::MAX)); SORT_BLOCK_EPL];
    for (e, r) in rank.iter_mut().enumerate() {
        let j = t.map(|t| e as u32 * threads + t);
        let saved = w.push_active(&j.map(|j| j < len), "sort_merge_row: j < len")?;
        let label = "sort_merge_row: val[base + j], idx[base + j]";
        let got = result_ranks(w, p, &out.out_off, &j.map(|j| base + j), label).await?;
        w.assign(r, &got);
        w.pop_active(saved);
    }
    block_bitonic_network(w, a, s, (&t, threads, per), &mut rank).await?;
    let first = t.map(|t| t * epl);
    let label = "sort_merge_row: the warp's part of the run in sorted order";
    check_warp_sorted(w, a.m, (&rank, &first, len), label)?;
    let mut at: Vec<Lanes<u32>> = (0..epl).map(|e| first.map(|f| f + e)).collect();
    for (r, pos) in rank.iter().zip(&at) {
        let saved = w.push_active(&pos.map(|p| p < len), "sort_merge_row: p < len")?;
        let key = r.map(|r| !((r >> 32) as u32));
        write_result(w, out, &pos.map(|p| base + p), &r.map(|r| r as u32), &key).await?;
        w.pop_active(saved);
    }
    w.barrier_cluster("sort_merge_row: cluster_sync() (every run written back)").await?;
    for q in (0..parts).filter(|&q| q != part) {
        let qlen = run_length(n, per, q);
        w.syncthreads("sort_merge_row: __syncthreads() (the shared ranks are free)").await?;
        load_run(w, p, &out.out_off, (q * per, qlen), s).await?;
        w.syncthreads("sort_merge_row: __syncthreads() (the run loaded)").await?;
        for (c, r) in at.iter_mut().zip(&rank) {
            let below = ranks_below(w, s, qlen, r).await?;
            *c = c.zip(&below, |c, b| c + b);
        }
    }
    if !a.has(Mutant::MergeSortNoClusterSync) {
        w.barrier_cluster("sort_merge_row: cluster_sync() (every run read)").await?;
    }
    for (e, (r, to)) in rank.iter().zip(&at).enumerate() {
        let pos = first.map(|f| f + e as u32);
        let saved = w.push_active(&pos.map(|p| p < len), "sort_merge_row: p < len")?;
        let key = r.map(|r| !((r >> 32) as u32));
        write_result(w, out, to, &r.map(|r| r as u32), &key).await?;
        w.pop_active(saved);
    }
    Ok(())
}
