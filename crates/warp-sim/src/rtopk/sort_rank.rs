//! The rank sort (the CUDA kernel's `sort_rank.cuh`; docs/kernel.md, "The rank sort"): a
//! row's k results, in index order from the selection, put in sorted order by a thread-block
//! cluster of `parts` blocks. Every block holds the row's ranks (`sort_rank`) in shared memory;
//! result r goes to position "how many of the row's ranks lie below r's" (distinct: so are the
//! indices), counted by `lanes` lanes of one block (`rank_below`). The cluster's barrier comes
//! between every block's reads of the row's results and any write over them.

use crate::engine::error::SimError;
use crate::engine::lanes::{FULL_MASK, Lanes};
use crate::engine::warp::Warp;
use crate::rtopk::mutant::Mutant;
use crate::rtopk::sort::{SortParams, load_rank, result_ranks, sort_rank, store_rank};
use rtopk_plan::plan::SORT_RANK_HELD;

/// `sort_rank_lanes`: lanes counting one slot's ranks, the most (a power of two up to 32)
/// whose `slots` slots fit `SORT_RANK_THREADS` threads (rtopk-plan's, which sizes the block).
fn sort_rank_lanes(slots: u32) -> u32 {
    rtopk_plan::plan::sort_rank_lanes(slots as usize) as u32
}

/// Results a slot holds (`SORT_RANK_HELD`).
const HELD: u32 = SORT_RANK_HELD as u32;

/// `load_ranks`: the row's `n` results (index order, from `out_off`) as ranks in shared
/// memory — rank `i` at words `2 i` (low) and `2 i + 1` (high) — and past them the rank that
/// sorts after every result, so that `rank_below` reads whole pairs.
async fn load_ranks(
    w: &mut Warp<'_>,
    p: &SortParams<'_>,
    out_off: &Lanes<u64>,
    n: u32,
) -> Result<(), SimError> {
    let (tid, threads) = (w.thread_idx(), w.block_dim());
    let mut i = tid;
    let mut at = 0;
    while at < n {
        let saved = w.push_active(&i.map(|i| i < n), "load_ranks: i < n")?;
        let r = result_ranks(w, p, out_off, &i, "load_ranks: val[i], idx[i]").await?;
        store_rank(w, 0, &i, &r, "load_ranks: ranks[i] = sort_rank(...)").await?;
        w.pop_active(saved);
        i = i.map(|i| i + threads);
        at += threads;
    }
    let saved = w.push_active(&tid.map(|t| t == 0), "load_ranks: threadIdx.x == 0")?;
    let last = Lanes::splat(sort_rank(0, u32::MAX));
    store_rank(w, 0, &Lanes::splat(n), &last, "load_ranks: ranks[n] = sort_rank(0, ~0)").await?;
    w.pop_active(saved);
    Ok(())
}

/// `rank_below`: for each of a slot's `SORT_RANK_HELD` ranks `mine`, how many of the row's
/// `n` ranks lie below it: the slot's lanes (an aligned group of `lanes`) read pairs `2 sub`,
/// `2 sub + 2 lanes`, … (the kernel's one 16-byte load a pair) and sum their counts by
/// butterfly shuffles. Every lane of the warp takes part.
async fn rank_below(
    w: &mut Warp<'_>,
    n: u32,
    mine: &[Lanes<u64>],
    (sub, lanes): (&Lanes<u32>, u32),
) -> Result<Vec<Lanes<u32>>, SimError> {
    let mut below = vec![Lanes::splat(0u32); mine.len()];
    let mut j = sub.map(|s| 2 * s);
    loop {
        let go = j.map(|j| j < n);
        if go.mask() & w.active_mask() == 0 {
            break;
        }
        let saved = w.push_active(&go, "rank_below: j < n")?;
        let x = load_rank(w, 0, &j, "rank_below: p = ranks[j .. j + 2]").await?;
        let y = load_rank(w, 0, &j.map(|j| j + 1), "rank_below: p = ranks[j .. j + 2]").await?;
        let active = w.active_mask();
        for (c, m) in below.iter_mut().zip(mine) {
            *c = Lanes::from_fn(|l| {
                let on = active >> l & 1 == 1;
                let add =
                    u32::from(on && x.lane(l) < m.lane(l)) + u32::from(on && y.lane(l) < m.lane(l));
                c.lane(l) + add
            });
        }
        w.pop_active(saved);
        j = j.map(|j| j + 2 * lanes);
    }
    for c in below.iter_mut() {
        let mut d = lanes / 2;
        while d > 0 {
            let other = w.shfl_xor_sync(FULL_MASK, c, d, 32, "rank_below: shfl_xor(below[e])")?;
            *c = c.zip(&other, |a, b| a + b);
            d /= 2;
        }
    }
    Ok(below)
}

/// `sort_rank_row`: block `part` of the row's cluster takes results `part per .. part per +
/// per - 1` (`per = ⌈k / parts⌉`), `SORT_RANK_HELD` consecutive ones a slot of `lanes`
/// threads (`slot = thread / lanes`): it loads the row's ranks (`load_ranks`) and its results'
/// values and indices, counts each result's rank (`rank_below`), and after the cluster's
/// barrier writes each at that position.
pub(crate) async fn sort_rank_row(
    w: &mut Warp<'_>,
    p: &SortParams<'_>,
    out_off: &Lanes<u64>,
    (n, parts, part): (u32, u32, u32),
) -> Result<(), SimError> {
    load_ranks(w, p, out_off, n).await?;
    let per = (p.a.k as u32).div_ceil(parts);
    let lanes = sort_rank_lanes(per.div_ceil(HELD));
    let tid = w.thread_idx();
    let (slot, sub) = (tid.map(|t| t / lanes), tid.map(|t| t % lanes));
    let mut held = Vec::new(); // (holds, r, value, index) of each of the slot's results
    for e in 0..HELD {
        let at = slot.map(|s| s * HELD + e);
        let r = at.map(|a| part * per + a);
        let holds = at.zip(&r, |a, r| a < per && r < n);
        let saved = w.push_active(&holds, "sort_rank_row: holds[e]")?;
        let addr = w.add_u64(out_off, &r.map(u64::from), "sort_rank_row: val + r")?;
        let v = w.ld_global(p.out_val, &addr, "sort_rank_row: v[e] = val[r]").await?;
        let i = w.ld_global(p.out_idx, &addr, "sort_rank_row: i[e] = idx[r]").await?;
        w.pop_active(saved);
        held.push((holds, r, v, i));
    }
    w.syncthreads("sort_rank_row: __syncthreads()").await?;
    let mut mine = Vec::new();
    for (holds, r, _, _) in &held {
        let saved = w.push_active(holds, "sort_rank_row: holds[e]")?;
        let own = load_rank(w, 0, r, "sort_rank_row: mine[e] = ranks[r]").await?;
        w.pop_active(saved);
        mine.push(Lanes::select(holds, &own, &Lanes::splat(0)));
    }
    let below = rank_below(w, n, &mine, (&sub, lanes)).await?;
    if !p.a.has(Mutant::RankSortNoClusterSync) {
        w.barrier_cluster("sort_rank_row: cluster_sync()").await?;
    }
    for ((holds, _, v, i), below) in held.iter().zip(&below) {
        let write = holds.zip(&sub, |h, s| h && s == 0);
        let saved = w.push_active(&write, "sort_rank_row: sub == 0 && holds[e]")?;
        let at = w.add_u64(out_off, &below.map(u64::from), "sort_rank_row: val + below[e]")?;
        w.st_global(p.out_val, &at, v, "sort_rank_row: val[below[e]] = v[e]").await?;
        w.st_global(p.out_idx, &at, i, "sort_rank_row: idx[below[e]] = i[e]").await?;
        w.pop_active(saved);
    }
    Ok(())
}
