//! A kernel that is not RTop-K, validated on the engine alone: a block-wide sum through shared
//! memory with `__syncthreads`, then the same kernel with the classic bug — the barrier
//! between the warps' partial sums and their reader left out — and the diagnostics that catch
//! it (an uninitialized shared read in order, a shared-memory race, and answers that change
//! with the schedule, the warps switching at every memory operation).
//!
//! The CUDA it simulates, blocks of 4 warps, one value per thread:
//!
//! ```text
//! __shared__ u32 partial[4];
//! u32 v = x[blockIdx.x * 128 + threadIdx.x];
//! for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffff, v, d);
//! if (lane == 0) partial[warp] = v;
//! __syncthreads();                                     // BUG variant: missing
//! if (warp == 0) {
//!     v = lane < 4 ? partial[lane] : 0;
//!     for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffff, v, d);
//!     if (lane == 0) out[blockIdx.x] = v;
//! }
//! ```
//!
//! Run: `cargo run -p warp-sim --example block_reduce`.

mod common;

use common::print_kinds;
use warp_sim::engine::{
    BufId, DiagPolicy, Diagnostic, FULL_MASK, Global, Grid, Lanes, Machine, Schedule, SimError,
    Warp,
};

/// Warps per block.
const WARPS: u32 = 4;

/// `v` summed over the warp's 32 lanes (5 `__shfl_xor_sync` steps); every lane gets the sum.
fn warp_sum(w: &mut Warp<'_>, v: Lanes<u32>) -> Result<Lanes<u32>, SimError> {
    let mut v = v;
    for d in [16, 8, 4, 2, 1] {
        let other = w.shfl_xor_sync(FULL_MASK, &v, d, 32, "__shfl_xor_sync(v, d)")?;
        v = v.zip(&other, u32::wrapping_add);
    }
    Ok(v)
}

/// The kernel: load, warp sums, lane 0 writes `partial[warp]`, (with `barrier`)
/// `__syncthreads()`, then warp 0 sums the partial sums into `out[blockIdx.x]`.
async fn block_reduce(
    w: &mut Warp<'_>,
    x: BufId,
    out: BufId,
    barrier: bool,
) -> Result<(), SimError> {
    let tid0 = u64::from(w.block_idx() * WARPS + w.warp_idx()) * 32;
    let lane = w.lane_id();
    let v = w.ld_global(x, &lane.map(|l| tid0 + u64::from(l)), "x[tid]").await?;
    let v = warp_sum(w, v)?;
    let lane0 = lane.map(|l| l == 0);
    let saved = w.push_active(&lane0, "if (lane == 0)")?;
    w.st_shared(&Lanes::splat(w.warp_idx()), &v, "partial[warp] = v").await?;
    w.pop_active(saved);
    if barrier {
        w.syncthreads("__syncthreads()").await?;
    }
    if w.warp_idx() != 0 {
        return Ok(());
    }
    let reads = lane.map(|l| l < WARPS);
    let saved = w.push_active(&reads, "if (lane < 4)")?;
    let part = w.ld_shared(&lane, "partial[lane]").await?;
    w.pop_active(saved);
    let v = warp_sum(w, Lanes::select(&reads, &part, &Lanes::splat(0)))?;
    let saved = w.push_active(&lane0, "if (lane == 0)")?;
    let at = Lanes::splat(u64::from(w.block_idx()));
    w.st_global(out, &at, &v, "out[block] = v").await?;
    w.pop_active(saved);
    Ok(())
}

/// Sums each block of 128 values of `x` on the simulator; returns the sums and every
/// diagnostic.
fn run(
    x: &[u32],
    barrier: bool,
    schedule: Schedule,
) -> Result<(Vec<u32>, Vec<Diagnostic>), SimError> {
    let blocks = x.len() / (32 * WARPS as usize);
    let mut machine = Machine::new(DiagPolicy::Collect, schedule);
    let input = machine.alloc(Global::from_words("x", x.to_vec()));
    let out = machine.alloc(Global::zeroed("out", blocks as u64)?);
    let grid = Grid::new(blocks as u32, WARPS, 4);
    machine.launch(grid, async |mut w| block_reduce(&mut w, input, out, barrier).await)?;
    Ok((machine.global(out).data().to_vec(), machine.take_diagnostics().0))
}

/// Three blocks of 128 values.
fn input() -> Vec<u32> {
    (0..3 * 128u32).map(|i| (i * 31 + 7) % 1000).collect()
}

/// The sums the kernel should produce.
fn expected(x: &[u32]) -> Vec<u32> {
    x.chunks(128).map(|c| c.iter().sum()).collect()
}

fn main() -> Result<(), SimError> {
    let x = input();
    println!("expected:          {:?}", expected(&x));
    let (sums, found) = run(&x, true, Schedule::InOrder)?;
    println!("block_reduce:      {sums:?}  ({} diagnostics)", found.len());
    let (sums, found) = run(&x, false, Schedule::InOrder)?;
    println!("without a barrier: {sums:?}  ({} diagnostics)", found.len());
    print_kinds(&found);
    let (sums, found) = run(&x, false, Schedule::Shuffled { seed: 3 })?;
    println!("shuffled schedule: {sums:?}  ({} diagnostics)", found.len());
    print_kinds(&found);
    Ok(())
}

#[cfg(test)]
mod tests {
    use warp_sim::engine::DiagKind;

    use super::*;

    #[test]
    fn the_kernel_sums_each_block_with_no_diagnostic_in_any_schedule() {
        let x = input();
        for schedule in [Schedule::InOrder, Schedule::Shuffled { seed: 1 }] {
            let (sums, found) = run(&x, true, schedule).unwrap();
            assert_eq!(sums, expected(&x));
            assert!(found.is_empty(), "{found:?}");
        }
    }

    /// In order, warp 0 runs first and reads partial sums no warp has written yet; when
    /// another warp's partial sum happens to come first, the read is a race with no barrier
    /// between; and the sums depend on the schedule.
    #[test]
    fn the_missing_barrier_is_caught() {
        let x = input();
        let (sums, found) = run(&x, false, Schedule::InOrder).unwrap();
        assert_ne!(sums, expected(&x));
        let first = &found[0];
        assert_eq!((first.kind, first.label), (DiagKind::UninitializedSharedRead, "partial[lane]"));
        assert_eq!(first.lanes, 0b1110, "warps 1 to 3 have not written yet");
        let mut races = 0;
        let mut outputs = std::collections::BTreeSet::new();
        for seed in 0..8 {
            let (sums, found) = run(&x, false, Schedule::Shuffled { seed }).unwrap();
            races += found.iter().filter(|d| d.kind == DiagKind::SharedRace).count();
            outputs.insert(sums);
        }
        assert!(races > 0, "some schedule runs a writer before the reader");
        assert!(outputs.len() > 1, "the sums depend on the schedule");
    }
}
