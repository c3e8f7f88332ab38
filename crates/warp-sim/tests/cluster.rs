//! sm_90 thread-block clusters on the engine: a distributed-shared-memory sum that is right
//! and silent in every schedule and residency, each planted misuse caught by its diagnostic,
//! launch validation, and clusters of one block behaving as plain blocks.

use std::cell::RefCell;

use warp_sim::engine::{
    BufId, ClusterRed, DiagKind, DiagPolicy, Diagnostic, Global, Grid, Lanes, Machine, Op,
    Schedule, SimError, Warp,
};

/// What the cluster kernel does, right or with one planted bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Variant {
    Correct,
    NoFirstBarrier,
    NoSecondBarrier,
    /// The lanes name ranks `0..=cluster` (one too many).
    RankPastCluster,
    /// Rank 0 returns after the first barrier; the others still reduce into it.
    RankZeroLeaves,
}

/// One launch's shape and kernel.
#[derive(Clone, Copy, Debug)]
struct Case {
    cluster: u32,
    clusters: u32,
    warps: u32,
    resident: u32,
    op: ClusterRed,
    variant: Variant,
}

impl Case {
    fn new(cluster: u32, warps: u32) -> Self {
        let (op, variant) = (ClusterRed::Add, Variant::Correct);
        Self { cluster, clusters: 3, warps, resident: 0, op, variant }
    }

    fn blocks(&self) -> u32 {
        self.cluster * self.clusters
    }

    /// Warp `warp` of block `block`'s contribution.
    fn count(block: u32, warp: u32) -> u32 {
        (block * 7 + warp * 3 + 1) % 50
    }

    /// The value every thread of block `block` should write.
    fn expected(&self, block: u32) -> u32 {
        let first = block / self.cluster * self.cluster;
        let counts = (first..first + self.cluster)
            .flat_map(|b| (0..self.warps).map(move |w| Self::count(b, w)));
        match self.op {
            ClusterRed::Add => counts.sum(),
            ClusterRed::Min => counts.min().unwrap_or(0),
            ClusterRed::Max => counts.max().unwrap_or(0),
        }
    }

    /// The identity the slot starts from.
    fn init(&self) -> u32 {
        if self.op == ClusterRed::Min { u32::MAX } else { 0 }
    }
}

/// The kernel: warp 0 lane 0 sets its block's slot (word 0) to the identity; cluster
/// barrier; lanes `0..cluster` of every warp reduce the warp's count into the slot of rank
/// `lane`; cluster barrier; every thread writes its block's slot to `out`.
async fn cluster_sum(w: &mut Warp<'_>, case: Case, out: BufId) -> Result<(), SimError> {
    let lane = w.lane_id();
    let c = w.cluster_size();
    let saved = w.push_active(&lane.map(|l| l == 0 && w.warp_idx() == 0), "if (tid == 0)")?;
    w.st_shared(&Lanes::splat(0), &Lanes::splat(case.init()), "slot = init").await?;
    w.pop_active(saved);
    if case.variant != Variant::NoFirstBarrier {
        w.barrier_cluster("cluster.sync() #1").await?;
    }
    if case.variant == Variant::RankZeroLeaves && w.cluster_ctarank() == 0 {
        return Ok(());
    }
    let ranks = if case.variant == Variant::RankPastCluster { c + 1 } else { c };
    let saved = w.push_active(&lane.map(|l| l < ranks), "if (lane < cluster)")?;
    let v = Lanes::splat(Case::count(w.block_idx(), w.warp_idx()));
    w.red_shared_cluster(case.op, &lane, &Lanes::splat(0), &v, "red(slot@rank lane)").await?;
    w.pop_active(saved);
    if case.variant != Variant::NoSecondBarrier {
        w.barrier_cluster("cluster.sync() #2").await?;
    }
    let v = w.ld_shared(&Lanes::splat(0), "slot").await?;
    let base = u64::from(w.block_idx() * w.warps_per_block() + w.warp_idx()) * 32;
    w.st_global(out, &lane.map(|l| base + u64::from(l)), &v, "out[tid] = slot").await
}

/// Runs `case` under `schedule`: each thread's output and the findings.
fn run(case: Case, schedule: Schedule) -> (Vec<u32>, Vec<Diagnostic>) {
    let mut m = Machine::new(DiagPolicy::Collect, schedule);
    let threads = u64::from(case.blocks() * case.warps * 32);
    let out = m.alloc(Global::zeroed("out", threads).unwrap());
    let mut grid = Grid::new(case.blocks(), case.warps, 1);
    grid.cluster = case.cluster;
    grid.resident = case.resident;
    m.launch(grid, async |mut w| cluster_sum(&mut w, case, out).await).unwrap();
    (m.global(out).data().to_vec(), m.take_diagnostics().0)
}

fn schedules() -> Vec<Schedule> {
    let shuffled = (1..=4).map(|seed| Schedule::Shuffled { seed });
    std::iter::once(Schedule::InOrder).chain(shuffled).collect()
}

fn kinds(d: &[Diagnostic]) -> Vec<DiagKind> {
    d.iter().map(|d| d.kind).collect()
}

/// Every thread's output against the case's expectation.
fn assert_outputs(case: Case, got: &[u32]) {
    let per_block = (case.warps * 32) as usize;
    for (b, chunk) in got.chunks(per_block).enumerate() {
        let want = case.expected(b as u32);
        assert!(chunk.iter().all(|&v| v == want), "{case:?} block {b}: {chunk:?} != {want}");
    }
}

#[test]
fn the_cluster_sum_is_right_and_silent_in_every_schedule_and_residency() {
    for (cluster, warps) in [(2, 1), (4, 2), (8, 3), (16, 4)] {
        for resident in [0, cluster] {
            let case = Case { resident, ..Case::new(cluster, warps) };
            for schedule in schedules() {
                let (got, found) = run(case, schedule);
                assert!(found.is_empty(), "{case:?} {schedule:?}: {found:?}");
                assert_outputs(case, &got);
            }
        }
    }
}

#[test]
fn min_and_max_reductions_are_right() {
    for op in [ClusterRed::Min, ClusterRed::Max] {
        let case = Case { op, ..Case::new(4, 2) };
        assert_ne!(case.expected(0), Case { op: ClusterRed::Add, ..case }.expected(0));
        for schedule in schedules() {
            let (got, found) = run(case, schedule);
            assert!(found.is_empty(), "{op:?} {schedule:?}: {found:?}");
            assert_outputs(case, &got);
        }
    }
}

#[test]
fn a_resident_count_is_rounded_up_to_whole_clusters() {
    // One resident block of clusters of 4 would hang the first cluster barrier were the
    // cluster's blocks not admitted together.
    let case = Case { resident: 1, ..Case::new(4, 1) };
    for schedule in schedules() {
        let (got, found) = run(case, schedule);
        assert!(found.is_empty(), "{schedule:?}: {found:?}");
        assert_outputs(case, &got);
    }
}

#[test]
fn a_missing_second_barrier_is_a_cluster_race() {
    let case = Case { variant: Variant::NoSecondBarrier, ..Case::new(2, 2) };
    for schedule in schedules() {
        let (_, found) = run(case, schedule);
        let race = found.iter().find(|d| d.kind == DiagKind::ClusterRace);
        let race = race.unwrap_or_else(|| panic!("{schedule:?}: {found:?}"));
        assert!(race.label == "slot" || race.label == "red(slot@rank lane)", "{race}");
    }
    // In order every warp reduces before it reads: the read finds the reductions.
    let (_, found) = run(case, Schedule::InOrder);
    let first = found.iter().find(|d| d.kind == DiagKind::ClusterRace).unwrap();
    assert_eq!((first.op, first.label, first.address), (Op::SharedLoad, "slot", Some(0)));
}

#[test]
fn a_missing_first_barrier_is_unsynced_and_races_with_the_initialization() {
    let case = Case { variant: Variant::NoFirstBarrier, ..Case::new(4, 1) };
    for schedule in schedules() {
        let (_, found) = run(case, schedule);
        let k = kinds(&found);
        assert!(k.contains(&DiagKind::ClusterUnsynced), "{schedule:?}: {k:?}");
        let unsynced = found.iter().find(|d| d.kind == DiagKind::ClusterUnsynced).unwrap();
        assert_eq!(unsynced.op, Op::ClusterRed);
        // The lane reducing into its own block (through the cluster window) is not unsynced.
        let own = 1 << (unsynced.block % 4);
        assert_eq!(unsynced.lanes & own, 0, "{unsynced}");
        assert!(k.contains(&DiagKind::ClusterRace), "{schedule:?}: {k:?}");
    }
}

#[test]
fn a_rank_past_the_cluster_is_reported_and_skipped() {
    let case = Case { variant: Variant::RankPastCluster, ..Case::new(4, 1) };
    for schedule in schedules() {
        let (got, found) = run(case, schedule);
        assert_eq!(kinds(&found), vec![DiagKind::ClusterRank; 12], "{schedule:?}");
        assert!(found.iter().all(|d| d.lanes == 1 << 4 && d.op == Op::ClusterRed));
        // Nothing was reduced anywhere else: the sums are still right.
        assert_outputs(case, &got);
    }
}

#[test]
fn a_block_that_leaves_while_reduced_into_is_caught() {
    let case = Case { variant: Variant::RankZeroLeaves, ..Case::new(2, 2) };
    for schedule in schedules() {
        let (_, found) = run(case, schedule);
        let k = kinds(&found);
        assert!(k.contains(&DiagKind::ClusterExited), "{schedule:?}: {k:?}");
        assert!(k.contains(&DiagKind::BarrierDivergence), "{schedule:?}: {k:?}");
        let d = found.iter().find(|d| d.kind == DiagKind::BarrierDivergence).unwrap();
        assert_eq!((d.op, d.block % 2), (Op::ClusterBarrier, 0), "{d}");
    }
    // In order, rank 0 has returned before rank 1 reduces into it.
    let (_, found) = run(case, Schedule::InOrder);
    let exited = found.iter().find(|d| d.kind == DiagKind::ClusterExited).unwrap();
    assert_eq!((exited.block, exited.lanes, exited.op), (1, 1, Op::ClusterRed));
}

#[test]
fn a_reduction_into_a_never_written_word_is_an_uninitialized_read() {
    let mut m = Machine::new(DiagPolicy::Collect, Schedule::InOrder);
    let mut grid = Grid::new(2, 1, 2);
    grid.cluster = 2;
    grid.resident = 2;
    m.launch(grid, async |mut w| {
        w.barrier_cluster("sync").await?;
        let v = Lanes::splat(1);
        let one = w.push_active_mask(1);
        w.red_shared_cluster(ClusterRed::Add, &Lanes::splat(1), &Lanes::splat(1), &v, "red")
            .await?;
        w.pop_active(one);
        w.barrier_cluster("sync").await
    })
    .unwrap();
    let found = m.take_diagnostics().0;
    assert_eq!(kinds(&found), vec![DiagKind::UninitializedSharedRead], "{found:?}");
    assert_eq!((found[0].block, found[0].address), (0, Some(1)));
}

#[test]
fn a_reduction_after_a_plain_read_of_the_phase_races() {
    let mut m = Machine::new(DiagPolicy::Collect, Schedule::InOrder);
    let mut grid = Grid::new(2, 1, 1);
    grid.cluster = 2;
    m.launch(grid, async |mut w| {
        let zero = Lanes::splat(0);
        let one = w.push_active_mask(1);
        w.st_shared(&zero, &zero, "slot = 0").await?;
        w.pop_active(one);
        w.barrier_cluster("sync #1").await?;
        let one = w.push_active_mask(1);
        if w.cluster_ctarank() == 0 {
            w.ld_shared(&zero, "read slot").await?;
        }
        w.pop_active(one);
        w.barrier_cluster("sync #2").await?;
        let one = w.push_active_mask(1);
        w.red_shared_cluster(ClusterRed::Add, &zero, &zero, &Lanes::splat(1), "red").await?;
        if w.cluster_ctarank() == 0 {
            w.ld_shared(&zero, "read again").await?;
        }
        w.pop_active(one);
        w.barrier_cluster("sync #3").await
    })
    .unwrap();
    let found = m.take_diagnostics().0;
    // Rank 0 reads in phase 2 after its own reduction of phase 2: a race; rank 1's later
    // reduction finds that read. The read of phase 1 is ordered by `sync #2`.
    let got: Vec<_> = found.iter().map(|d| (d.kind, d.label, d.block)).collect();
    let want = [(DiagKind::ClusterRace, "read again", 0), (DiagKind::ClusterRace, "red", 1)];
    assert_eq!(got, want, "{found:?}");
}

#[test]
fn launches_of_broken_clusters_are_refused() {
    let mut m = Machine::new(DiagPolicy::Collect, Schedule::InOrder);
    let shapes = [(4, 0, None), (32, 17, None), (6, 4, None), (8, 4, Some((2, 8)))];
    for (blocks, cluster, simulate) in shapes {
        let mut grid = Grid::new(blocks, 1, 1);
        grid.cluster = cluster;
        if let Some(range) = simulate {
            grid.simulate = range;
        }
        let err = m.launch(grid, async |_w| Ok(())).unwrap_err();
        assert!(matches!(&err, SimError::InvalidLaunch(why) if why.contains("cluster")), "{err}");
    }
    let mut grid = Grid::new(16, 1, 1);
    grid.cluster = 16;
    grid.simulate = (0, 16);
    assert!(m.launch(grid, async |_w| Ok(())).is_ok());
    assert_eq!(Grid::new(5, 1, 1).cluster, 1);
}

/// `n` warps each write their word, then `barrier` (or none), then warp 0 sums the words.
fn block_sum(barrier: Option<bool>, cluster: u32) -> (u32, Vec<Diagnostic>) {
    let sum = RefCell::new(0);
    let mut m = Machine::new(DiagPolicy::Collect, Schedule::InOrder);
    let mut grid = Grid::new(cluster, 4, 4);
    grid.cluster = cluster;
    m.launch(grid, async |mut w| {
        let one = w.push_active_mask(1);
        let me = Lanes::splat(w.warp_idx());
        w.st_shared(&me, &me.map(|x| x + 1), "word[warp] = warp + 1").await?;
        w.pop_active(one);
        match barrier {
            Some(true) => w.barrier_cluster("cluster.sync()").await?,
            Some(false) => w.syncthreads("__syncthreads()").await?,
            None => {}
        }
        if w.warp_idx() == 0 && w.block_idx() == 0 {
            let mask = w.push_active_mask(0xf);
            let v = w.ld_shared(&w.lane_id(), "word[lane]").await?;
            *sum.borrow_mut() = w.reduce_add_sync(0xf, &v, "sum")?.lane(0);
            w.pop_active(mask);
        }
        Ok(())
    })
    .unwrap();
    (sum.into_inner(), m.take_diagnostics().0)
}

#[test]
fn a_cluster_barrier_of_one_block_is_a_syncthreads() {
    assert_eq!(block_sum(Some(true), 1), block_sum(Some(false), 1));
    assert_eq!(block_sum(Some(true), 1), (10, vec![]));
    // Without it, the in-order warp 0 reads words the others have not written.
    let (_, found) = block_sum(None, 1);
    assert!(kinds(&found).contains(&DiagKind::UninitializedSharedRead), "{found:?}");
    // In a cluster of two, the cluster barrier orders each block's own words too.
    assert_eq!(block_sum(Some(true), 2), (10, vec![]));
}

#[test]
fn block_and_cluster_barriers_do_not_release_each_other() {
    let mut m = Machine::new(DiagPolicy::Collect, Schedule::InOrder);
    let mut grid = Grid::new(2, 2, 1);
    grid.cluster = 2;
    let log = RefCell::new(Vec::new());
    m.launch(grid, async |mut w| {
        w.syncthreads("__syncthreads() first").await?;
        w.barrier_cluster("cluster.sync()").await?;
        w.syncthreads("__syncthreads() last").await?;
        // Warp 1 of block 1 waits at __syncthreads where the others wait at the cluster
        // barrier: a hang on the hardware, reported and released here.
        if (w.block_idx(), w.warp_idx()) == (1, 1) {
            w.syncthreads("__syncthreads() stray").await?;
        } else {
            w.barrier_cluster("cluster.sync() again").await?;
        }
        log.borrow_mut().push((w.block_idx(), w.warp_idx()));
        Ok(())
    })
    .unwrap();
    assert_eq!(log.into_inner().len(), 4, "every task finished");
    let found = m.take_diagnostics().0;
    assert!(!found.is_empty());
    assert!(found.iter().all(|d| d.kind == DiagKind::BarrierDivergence), "{found:?}");
}

#[test]
fn ranks_and_sizes_follow_the_cluster_and_clusters_stay_whole_when_shuffled() {
    for schedule in schedules() {
        let mut m = Machine::new(DiagPolicy::Collect, schedule);
        let mut grid = Grid::new(12, 1, 0);
        grid.cluster = 4;
        grid.resident = 4;
        let starts = RefCell::new(Vec::new());
        m.launch(grid, async |w| {
            assert_eq!((w.cluster_ctarank(), w.cluster_size()), (w.block_idx() % 4, 4));
            starts.borrow_mut().push(w.block_idx());
            Ok(())
        })
        .unwrap();
        // One whole cluster at a time is resident.
        for c in starts.into_inner().chunks(4) {
            let mut c = c.to_vec();
            c.sort_unstable();
            assert_eq!(c, (0..4).map(|r| c[0] + r).collect::<Vec<_>>(), "{schedule:?}");
            assert_eq!(c[0] % 4, 0);
        }
    }
}

/// `st.shared::cluster`: each block stores into the next block's word 0 (rank + 1 mod 2), and
/// after a cluster barrier every block reads its neighbour's value, silently; a read by the
/// owner before the barrier, or a second store into the word in the same phase, is a
/// [`DiagKind::ClusterRace`]; a store before the first cluster barrier is a
/// [`DiagKind::ClusterUnsynced`].
#[test]
fn cluster_stores_are_seen_after_the_barrier_and_races_are_reported() {
    #[derive(Clone, Copy, PartialEq)]
    enum Store {
        Right,
        OwnerReadsFirst,
        Twice,
        BeforeFirstSync,
    }
    let run = |store: Store| {
        let mut m = Machine::new(DiagPolicy::Collect, Schedule::InOrder);
        let out = m.alloc(Global::zeroed("out", 2).unwrap());
        let mut grid = Grid::new(2, 1, 1);
        grid.cluster = 2;
        m.launch(grid, async move |mut w| {
            let zero = Lanes::splat(0);
            let rank = w.cluster_ctarank();
            if store != Store::BeforeFirstSync {
                w.barrier_cluster("sync #1").await?;
            }
            let one = w.push_active_mask(1);
            let next = Lanes::splat((rank + 1) % 2);
            let v = Lanes::splat(10 + rank);
            w.st_shared_cluster(&next, &zero, &v, "store into the next block").await?;
            if store == Store::Twice {
                w.st_shared_cluster(&next, &zero, &v, "store again").await?;
            }
            if store == Store::OwnerReadsFirst && rank == 1 {
                w.ld_shared(&zero, "read before the barrier").await?;
            }
            w.pop_active(one);
            w.barrier_cluster("sync #2").await?;
            let one = w.push_active_mask(1);
            let got = w.ld_shared(&zero, "read").await?;
            w.st_global(out, &Lanes::splat(u64::from(rank)), &got, "out[rank] = word").await?;
            w.pop_active(one);
            Ok(())
        })
        .unwrap();
        (m.global(out).data().to_vec(), kinds(&m.take_diagnostics().0))
    };
    assert_eq!(run(Store::Right), (vec![11, 10], vec![]));
    let (_, found) = run(Store::OwnerReadsFirst);
    assert!(found.contains(&DiagKind::ClusterRace), "{found:?}");
    let (_, found) = run(Store::Twice);
    assert_eq!(found, vec![DiagKind::ClusterRace; 2], "{found:?}");
    let (_, found) = run(Store::BeforeFirstSync);
    assert!(found.contains(&DiagKind::ClusterUnsynced), "{found:?}");
}
