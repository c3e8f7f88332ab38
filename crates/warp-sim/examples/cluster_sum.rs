//! A cluster-wide sum through distributed shared memory (sm_90 thread-block clusters) on the
//! engine: each block's warps add their count into a slot of every block of the cluster, so
//! that every block ends up holding the cluster's total — then the same kernel without its
//! second cluster barrier, and without its first, and the diagnostics that catch them.
//!
//! The CUDA it simulates, clusters of 4 blocks of 2 warps:
//!
//! ```text
//! __shared__ u32 slot;
//! cg::cluster_group cluster = cg::this_cluster();
//! if (threadIdx.x == 0) slot = 0;
//! cluster.sync();                                      // BUG variant: missing
//! if (lane < cluster.num_blocks())                     // lane r adds into rank r's slot
//!     atomicAdd(cluster.map_shared_rank(&slot, lane), count(blockIdx.x, warp));
//! cluster.sync();                                      // BUG variant: missing
//! out[blockIdx.x * blockDim.x + threadIdx.x] = slot;
//! ```
//!
//! Run: `cargo run -p warp-sim --example cluster_sum`.

mod common;

use common::print_kinds;
use warp_sim::engine::{
    BufId, ClusterRed, DiagPolicy, Diagnostic, Global, Grid, Lanes, Machine, Schedule, SimError,
    Warp,
};

/// Blocks per cluster.
const CLUSTER: u32 = 4;
/// Warps per block.
const WARPS: u32 = 2;
/// Blocks in the grid (two clusters).
const BLOCKS: u32 = 2 * CLUSTER;

/// Warp `warp` of block `block`'s count.
fn count(block: u32, warp: u32) -> u32 {
    block * 10 + warp + 1
}

/// The kernel; `barriers` says which of the two cluster barriers it keeps.
async fn cluster_sum(w: &mut Warp<'_>, out: BufId, barriers: [bool; 2]) -> Result<(), SimError> {
    let lane = w.lane_id();
    let tid0 = w.push_active(&lane.map(|l| l == 0 && w.warp_idx() == 0), "if (tid == 0)")?;
    w.st_shared(&Lanes::splat(0), &Lanes::splat(0), "slot = 0").await?;
    w.pop_active(tid0);
    if barriers[0] {
        w.barrier_cluster("cluster.sync() #1").await?;
    }
    let ranks = w.push_active(&lane.map(|l| l < w.cluster_size()), "if (lane < cluster)")?;
    let v = Lanes::splat(count(w.block_idx(), w.warp_idx()));
    w.red_shared_cluster(ClusterRed::Add, &lane, &Lanes::splat(0), &v, "atomicAdd(slot@lane)")
        .await?;
    w.pop_active(ranks);
    if barriers[1] {
        w.barrier_cluster("cluster.sync() #2").await?;
    }
    let v = w.ld_shared(&Lanes::splat(0), "slot").await?;
    let base = u64::from(w.block_idx() * WARPS + w.warp_idx()) * 32;
    w.st_global(out, &lane.map(|l| base + u64::from(l)), &v, "out[tid] = slot").await
}

/// Each block's total (its thread 0's output) and every diagnostic.
fn run(barriers: [bool; 2], schedule: Schedule) -> Result<(Vec<u32>, Vec<Diagnostic>), SimError> {
    let mut machine = Machine::new(DiagPolicy::Collect, schedule);
    let out = machine.alloc(Global::zeroed("out", u64::from(BLOCKS * WARPS * 32))?);
    let mut grid = Grid::new(BLOCKS, WARPS, 1);
    grid.cluster = CLUSTER;
    machine.launch(grid, async |mut w| cluster_sum(&mut w, out, barriers).await)?;
    let totals = machine.global(out).data().iter().step_by((WARPS * 32) as usize).copied();
    Ok((totals.collect(), machine.take_diagnostics().0))
}

/// The totals the kernel should produce, per block.
fn expected() -> Vec<u32> {
    let cluster = |b: u32| b / CLUSTER * CLUSTER..b / CLUSTER * CLUSTER + CLUSTER;
    let total = |b| cluster(b).flat_map(|c| (0..WARPS).map(move |w| count(c, w))).sum();
    (0..BLOCKS).map(total).collect()
}

fn main() -> Result<(), SimError> {
    println!("expected:               {:?}", expected());
    let (sums, found) = run([true, true], Schedule::Shuffled { seed: 3 })?;
    println!("cluster_sum:            {sums:?}  ({} diagnostics)", found.len());
    let (sums, found) = run([true, false], Schedule::InOrder)?;
    println!("without the 2nd barrier: {sums:?}  ({} diagnostics)", found.len());
    print_kinds(&found);
    let (sums, found) = run([false, true], Schedule::Shuffled { seed: 3 })?;
    println!("without the 1st barrier: {sums:?}  ({} diagnostics)", found.len());
    print_kinds(&found);
    Ok(())
}

#[cfg(test)]
mod tests {
    use warp_sim::engine::DiagKind;

    use super::*;

    #[test]
    fn the_kernel_sums_each_cluster_with_no_diagnostic_in_any_schedule() {
        for schedule in [Schedule::InOrder, Schedule::Shuffled { seed: 1 }] {
            let (sums, found) = run([true, true], schedule).unwrap();
            assert_eq!(sums, expected());
            assert!(found.is_empty(), "{found:?}");
        }
    }

    #[test]
    fn the_missing_barriers_are_caught() {
        let (_, found) = run([true, false], Schedule::InOrder).unwrap();
        assert_eq!(found[0].kind, DiagKind::ClusterRace);
        let (_, found) = run([false, true], Schedule::InOrder).unwrap();
        assert!(found.iter().any(|d| d.kind == DiagKind::ClusterUnsynced));
    }
}
