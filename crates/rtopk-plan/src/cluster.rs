//! Cluster rows (docs/kernel.md, "Cluster rows"): a few long rows, each over a thread-block
//! cluster of compute capability 9.0 (CUDA Programming Guide, "Thread Block Clusters"). One
//! block per row leaves all but a few SMs idle and its search runs at one SM's pace (a count
//! costs about 280 cycles plus 27 a warp: docs/performance.md, "Few rows"); a split row
//! searches twice, once per stage, with a launch between. A cluster's blocks hold the row's
//! parts in registers, as many block rows side by side, and run the row's one search together:
//! each count is every block's count added in each block's shared memory through distributed
//! shared memory and one cluster barrier, so the search, its iteration counts and the answer
//! are the row's own (exact or approximate, as asked).

use topk_ref::check_shape;

use crate::error::PlanError;
use crate::plan::{DeviceLimits, Launch, Plan};
use crate::units::{BLOCK_EPL, Family, Unit};

/// Rows up to this width stay one block per row (at most 512 threads): on an H200 a cluster of
/// two blocks of 256 took 1.22-1.25x the one block's time at M = 16384 (1 to 32 rows, k = 512
/// to 2048; results/cuda/2026-11-29-cluster-rows-h200), the cluster's barriers costing more
/// than the second SM saves.
pub const CLUSTER_MIN_ROW: usize = 16384;
/// Elements a block of a cluster row aims to hold (256 threads of [`BLOCK_EPL`] keys): rows
/// take ⌈M / CLUSTER_SPAN⌉ blocks, at least 2 and at most the device's cluster size.
pub const CLUSTER_SPAN: usize = 8192;
/// Rows up to this width take a cluster whatever k is (blocks of at most 512 threads in a
/// cluster of 8); wider ones only where k is at least [`CLUSTER_WIDE_K_PER`]-th of the row. On
/// an H200 (same record) rows of 49152 to 131072 took 0.51-0.93x the split's time for every k
/// measured (20 to 2048), while at 262144 (blocks of 1024 threads) the split's first stage,
/// small chunks on many SMs, won for k up to 1024 (1.03-1.48x), and at 163840 the cluster won
/// from k = 1024 (0.63-0.92x).
pub const CLUSTER_MAX_ROW: usize = 131_072;
/// See [`CLUSTER_MAX_ROW`].
pub const CLUSTER_WIDE_K_PER: usize = 160;
/// The largest portable cluster (CUDA Programming Guide, "Thread Block Clusters": 8 blocks on
/// every device that launches clusters).
pub const PORTABLE_CLUSTER: usize = 8;

/// Whether the default runs `launch` as cluster rows: a device that launches clusters, rows of
/// at most 32-bit elements past [`CLUSTER_MIN_ROW`], up to [`CLUSTER_MAX_ROW`] or with k at
/// least a [`CLUSTER_WIDE_K_PER`]-th of the row, that the cluster holds in registers, and few
/// enough rows that every cluster runs at once. Ragged rows (docs/contract.md §5) likewise, by
/// their width `launch.m` (their own lengths are on the device): the ragged twin
/// (`rtopk_cluster_rows_ragged`) reads each row's length, k and hint.
pub fn clusters(launch: &Launch, limits: &DeviceLimits) -> bool {
    let Launch { m, k, .. } = *launch;
    let pays =
        m > CLUSTER_MIN_ROW && (m <= CLUSTER_MAX_ROW || k.saturating_mul(CLUSTER_WIDE_K_PER) >= m);
    k > 0 && pays && cluster_shape(launch, limits).is_some()
}

/// Blocks per row and threads per block of `launch` as cluster rows, where a cluster holds it
/// and every cluster fits the device at once.
fn cluster_shape(launch: &Launch, limits: &DeviceLimits) -> Option<(usize, usize)> {
    let Launch { n, m, elem, .. } = *launch;
    if elem.wide() || limits.max_cluster < 2 || n == 0 {
        return None;
    }
    let size = m.div_ceil(CLUSTER_SPAN).clamp(2, limits.max_cluster);
    let threads = m.div_ceil(size * BLOCK_EPL).next_multiple_of(32).max(64);
    let fits = threads <= 1024 && n.checked_mul(size)? <= limits.sm_count;
    fits.then_some((size, threads))
}

/// The plan of `launch` as cluster rows ([`clusters`] says where it applies).
pub fn cluster_plan(launch: &Launch, limits: &DeviceLimits) -> Result<Plan, PlanError> {
    let Launch { n, m, k, elem, .. } = *launch;
    check_shape(m, k)?;
    let why = "no cluster of the device holds the rows at once";
    let (size, threads) = cluster_shape(launch, limits).ok_or(PlanError::TooLarge { n, m, why })?;
    let blocks = n * size; // at most the SM count
    Ok(Plan {
        unit: Unit::single(Family::ClusterRows).with_elem(elem),
        keys_per_lane: BLOCK_EPL,
        lanes_per_row: threads,
        grid: blocks as u32,
        block: threads as u32,
        dynamic_shared: crate::plan::block_load_stage(blocks, threads, elem, limits),
        cached_keys: 0,
        narrows: false,
        sort: crate::plan::sort_of(launch, limits)?,
        cluster: size as u32,
    })
}

/// Blocks per cluster the device launches (its `max_cluster`): the portable size on devices
/// that launch clusters, else 1.
pub fn max_cluster_of(launches_clusters: bool) -> usize {
    if launches_clusters { PORTABLE_CLUSTER } else { 1 }
}

#[cfg(test)]
mod tests {
    use topk_ref::{Bisect, Mode};

    use super::*;
    use crate::units::ElemType;

    const H200: DeviceLimits =
        DeviceLimits { sm_count: 132, shared_optin_bytes: 232_448, max_cluster: 8 };

    fn launch(n: usize, m: usize, k: usize) -> Launch {
        Launch {
            n,
            m,
            k,
            mode: Mode::Largest,
            bisect: Bisect::exact(),
            sorted: false,
            elem: ElemType::F32,
        }
    }

    #[test]
    fn few_long_rows_take_a_cluster_each_and_the_rest_do_not() {
        let p = cluster_plan(&launch(1, 163_840, 2048), &H200).unwrap();
        assert_eq!((p.cluster, p.block, p.grid), (8, 640, 8));
        assert_eq!(p.family(), Family::ClusterRows);
        let p = cluster_plan(&launch(4, 16_385, 512), &H200).unwrap();
        assert_eq!((p.cluster, p.block, p.grid), (3, 192, 12));
        assert!(!clusters(&launch(4, 16_384, 512), &H200));
        // wide rows for large k only, as far as the cluster's registers hold the row: 8 blocks
        // of 1024 threads
        assert!(clusters(&launch(1, CLUSTER_MAX_ROW, 20), &H200));
        assert!(!clusters(&launch(1, CLUSTER_MAX_ROW + 1, 64), &H200));
        assert!(clusters(&launch(1, 163_840, 1024), &H200));
        assert!(clusters(&launch(1, 8 * 32 * 1024, 2048), &H200));
        assert!(!clusters(&launch(1, 8 * 32 * 1024 + 1, 4096), &H200));
        // every cluster at once, short rows, 64-bit rows and older devices: none
        assert!(clusters(&launch(16, 100_000, 64), &H200));
        assert!(!clusters(&launch(17, 100_000, 64), &H200));
        assert!(!clusters(&launch(1, 100_000, 0), &H200));
        assert!(!clusters(&launch(1, CLUSTER_MIN_ROW, 64), &H200));
        let wide = Launch { elem: ElemType::F64, ..launch(1, 100_000, 64) };
        assert!(!clusters(&wide, &H200));
        let a100 = DeviceLimits { max_cluster: 1, ..H200 };
        assert!(!clusters(&launch(1, 100_000, 64), &a100));
        assert!(cluster_plan(&launch(1, 100_000, 64), &a100).is_err());
        // 16-bit and integer rows hold one key a slot too; f32 rows stage their loads
        let bf16 = Launch { elem: ElemType::Bf16, ..launch(2, 65_536, 1024) };
        let p = cluster_plan(&bf16, &H200).unwrap();
        assert_eq!((p.unit.elem_type(), p.dynamic_shared), (ElemType::Bf16, 0));
        assert!(cluster_plan(&launch(2, 65_536, 1024), &H200).unwrap().dynamic_shared > 0);
    }

    #[test]
    fn every_block_of_a_cluster_holds_part_of_the_row() {
        let mut planned = 0;
        for m in [8193, 9000, 16_384, 50_000, 100_000, 163_840, 200_001, 262_144] {
            for n in [1, 2, 16] {
                let p = cluster_plan(&launch(n, m, 1), &H200).unwrap();
                planned += 1;
                let span = BLOCK_EPL * p.block as usize;
                let size = p.cluster as usize;
                assert!(span * size >= m && span * (size - 1) < m, "M={m}");
                assert!((2..=8).contains(&size) && p.block % 32 == 0 && p.block <= 1024);
                assert_eq!(p.grid as usize, n * size);
            }
        }
        assert_eq!(planned, 24);
        // past the cluster's registers, or more clusters than SMs: none
        assert!(cluster_plan(&launch(1, 8 * 32 * 1024 + 1, 1), &H200).is_err());
        assert!(cluster_plan(&launch(17, 100_000, 1), &H200).is_err());
    }
}
