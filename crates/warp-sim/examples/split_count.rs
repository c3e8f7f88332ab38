//! Blocks that cooperate through global memory, validated on the engine alone: one long row
//! split across the blocks of a grid, each counting its chunk's values `>= t`; each block's
//! thread 0 stores its count in `partial[blockIdx.x]` and takes a ticket with `atomicAdd`,
//! and the block that draws the last ticket adds the partial counts up. The blocks are
//! resident together and interleave at every memory operation under a shuffled schedule.
//! Then the same kernel with a realistic bug — every block stores its count in `partial[0]` —
//! and the diagnostics that catch it: a race between blocks on one global word, and an answer
//! that changes with the schedule.
//!
//! The CUDA it simulates, blocks of 2 warps, one value per thread:
//!
//! ```text
//! __shared__ u32 s_count[2], s_last;
//! u32 c = __reduce_add_sync(0xffffffff, x[blockIdx.x * 64 + threadIdx.x] >= t);
//! if (lane == 0) s_count[warp] = c;
//! __syncthreads();
//! if (threadIdx.x == 0) {
//!     partial[blockIdx.x] = s_count[0] + s_count[1];   // BUG variant: partial[0]
//!     s_last = atomicAdd(&arrived, 1) == gridDim.x - 1;
//! }
//! __syncthreads();
//! if (s_last && warp == 0) {
//!     u32 v = __reduce_add_sync(0xffffffff, lane < gridDim.x ? partial[lane] : 0);
//!     if (lane == 0) *out = v;
//! }
//! ```
//!
//! Run: `cargo run -p warp-sim --example split_count`.

use warp_sim::engine::{
    BufId, DiagPolicy, Diagnostic, FULL_MASK, Global, Grid, Lanes, Machine, Schedule, SimError,
    Warp,
};

/// Blocks and threads per block.
const BLOCKS: u32 = 8;
const THREADS: u32 = 64;

/// The global buffers: the row, the partial counts, the ticket counter, the count.
#[derive(Clone, Copy)]
struct Bufs {
    x: BufId,
    partial: BufId,
    arrived: BufId,
    out: BufId,
}

/// The kernel for one warp (`one_slot`: the bug).
async fn split_count(w: &mut Warp<'_>, b: Bufs, t: u32, one_slot: bool) -> Result<(), SimError> {
    let (block, warp) = (w.block_idx(), w.warp_idx());
    let lane = w.lane_id();
    let i = lane.map(|l| u64::from(block * THREADS + warp * 32 + l));
    let v = w.ld_global(b.x, &i, "x[i]").await?;
    let c = w.reduce_add_sync(FULL_MASK, &v.map(|v| u32::from(v >= t)), "count")?;
    let lane0 = lane.map(|l| l == 0);
    let saved = w.push_active(&lane0, "if (lane == 0)")?;
    w.st_shared(&Lanes::splat(warp), &c, "s_count[warp] = c").await?;
    w.pop_active(saved);
    w.syncthreads("__syncthreads()").await?;
    if warp == 0 {
        let saved = w.push_active(&lane0, "if (threadIdx.x == 0)")?;
        let c0 = w.ld_shared(&Lanes::splat(0), "s_count[0]").await?;
        let c1 = w.ld_shared(&Lanes::splat(1), "s_count[1]").await?;
        let slot = if one_slot { 0 } else { block }; // BUG: one slot for every block
        let sum = c0.zip(&c1, u32::wrapping_add);
        w.st_global(b.partial, &Lanes::splat(u64::from(slot)), &sum, "partial[block] = count")
            .await?;
        let ticket =
            w.atomic_add_global(b.arrived, &Lanes::splat(0), &Lanes::splat(1), "ticket").await?;
        let last = ticket.map(|t| u32::from(t == BLOCKS - 1));
        w.st_shared(&Lanes::splat(2), &last, "s_last = ticket == last").await?;
        w.pop_active(saved);
    }
    w.syncthreads("__syncthreads()").await?;
    let last = w.ld_shared(&Lanes::splat(2), "s_last").await?;
    if w.uniform(&last, "s_last")? == 1 && warp == 0 {
        let reads = lane.map(|l| l < BLOCKS);
        let saved = w.push_active(&reads, "if (lane < gridDim.x)")?;
        let p = w.ld_global(b.partial, &lane.map(u64::from), "partial[lane]").await?;
        w.pop_active(saved);
        let total =
            w.reduce_add_sync(FULL_MASK, &Lanes::select(&reads, &p, &Lanes::splat(0)), "total")?;
        let saved = w.push_active(&lane0, "if (lane == 0)")?;
        w.st_global(b.out, &Lanes::splat(0), &total, "*out = total").await?;
        w.pop_active(saved);
    }
    Ok(())
}

/// Counts the values of `x` (`BLOCKS * THREADS` of them) that are `>= t`.
fn run(
    x: &[u32],
    t: u32,
    one_slot: bool,
    schedule: Schedule,
) -> Result<(u32, Vec<Diagnostic>), SimError> {
    let mut machine = Machine::new(DiagPolicy::Collect, schedule);
    let b = Bufs {
        x: machine.alloc(Global::from_words("x", x.to_vec())),
        partial: machine.alloc(Global::zeroed("partial", u64::from(BLOCKS))?),
        arrived: machine.alloc(Global::zeroed("arrived", 1)?),
        out: machine.alloc(Global::zeroed("out", 1)?),
    };
    let mut grid = Grid::new(BLOCKS, THREADS / 32, 3);
    grid.resident = 0; // every block at once
    machine.launch(grid, async |mut w| split_count(&mut w, b, t, one_slot).await)?;
    Ok((machine.global(b.out).data()[0], machine.take_diagnostics().0))
}

/// The row: `BLOCKS * THREADS` values.
fn input() -> Vec<u32> {
    (0..BLOCKS * THREADS).map(|i| (i * 7919 + 13) % 1000).collect()
}

fn main() -> Result<(), SimError> {
    let (x, t) = (input(), 600);
    let want = x.iter().filter(|&&v| v >= t).count();
    println!("values >= {t}: {want}");
    let (got, found) = run(&x, t, false, Schedule::Shuffled { seed: 1 })?;
    println!("split_count:        {got}  ({} diagnostics)", found.len());
    let (got, found) = run(&x, t, true, Schedule::Shuffled { seed: 1 })?;
    println!("one slot (the bug): {got}  ({} diagnostics)", found.len());
    if let Some(d) = found.first() {
        println!("  {d}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use warp_sim::engine::DiagKind;

    use super::*;

    #[test]
    fn the_blocks_count_together_with_no_diagnostic_in_any_schedule() {
        let (x, t) = (input(), 600);
        let want = x.iter().filter(|&&v| v >= t).count() as u32;
        for schedule in
            [Schedule::InOrder, Schedule::Shuffled { seed: 1 }, Schedule::Shuffled { seed: 2 }]
        {
            let (got, found) = run(&x, t, false, schedule).unwrap();
            assert_eq!(got, want);
            assert!(found.is_empty(), "{found:?}");
        }
    }

    /// Every block storing into one slot is a race between blocks on a global word, found in
    /// any schedule, and the count it leaves depends on the schedule.
    #[test]
    fn one_slot_for_every_block_is_caught() {
        let (x, t) = (input(), 600);
        let (_, found) = run(&x, t, true, Schedule::InOrder).unwrap();
        let race = found.iter().find(|d| d.kind == DiagKind::GlobalRace).expect("a race");
        assert_eq!((race.label, race.address), ("partial[block] = count", Some(0)));
        let counts: std::collections::BTreeSet<u32> =
            (0..8).map(|s| run(&x, t, true, Schedule::Shuffled { seed: s }).unwrap().0).collect();
        assert!(counts.len() > 1, "the answer depends on the schedule: {counts:?}");
    }
}
