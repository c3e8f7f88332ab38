//! The execution model on small hand-written kernels: CUDA semantics of every primitive, and
//! each kind of diagnostic raised exactly where it should be (and nowhere else).

use warp_sim::{
    Arrive, DiagKind, DiagPolicy, Diagnostic, FULL_MASK, Global, Grid, Lanes, Machine, Schedule,
    SimError, Warp,
};

fn grid(blocks: u32, warps: u32, shared_words: usize) -> Grid {
    Grid { blocks, warps_per_block: warps, shared_words }
}

/// Runs a one-warp kernel and returns its findings.
fn run_warp(
    shared_words: usize,
    body: impl FnMut(&mut Warp<'_>) -> Result<(), SimError>,
) -> Vec<Diagnostic> {
    let mut m = Machine::new(DiagPolicy::Collect, Schedule::InOrder);
    m.launch(grid(1, 1, shared_words), body).unwrap();
    m.take_diagnostics().0
}

fn kinds(d: &[Diagnostic]) -> Vec<DiagKind> {
    d.iter().map(|d| d.kind).collect()
}

#[test]
fn butterfly_sum_reaches_every_lane() {
    let mut sums = Lanes::splat(0u32);
    let d = run_warp(0, |w| {
        let mut v = w.lane_id();
        for offset in [16, 8, 4, 2, 1] {
            let other = w.shfl_xor_sync(FULL_MASK, &v, offset, 32, "sum")?;
            v = v.zip(&other, |a, b| a + b);
        }
        sums = v;
        Ok(())
    });
    assert!(d.is_empty());
    assert_eq!(sums, Lanes::splat(496));
}

#[test]
fn shuffles_follow_cuda_width_semantics() {
    let mut got = Vec::new();
    let d = run_warp(0, |w| {
        let v = w.lane_id().map(|l| l * 10);
        got.push(w.shfl_up_sync(FULL_MASK, &v, 1, 8, "up")?);
        got.push(w.shfl_down_sync(FULL_MASK, &v, 2, 8, "down")?);
        got.push(w.shfl_xor_sync(FULL_MASK, &v, 4, 8, "xor")?);
        got.push(w.shfl_sync(FULL_MASK, &v, 3, 8, "bcast")?);
        got.push(w.shfl_sync(FULL_MASK, &v, 35, 32, "src % 32")?);
        got.push(w.shfl_idx_sync(FULL_MASK, &v, &w.lane_id().map(|l| 31 - l), 32, "rev")?);
        Ok(())
    });
    assert!(d.is_empty(), "{d:?}");
    // Lane 8 starts a segment: shfl_up keeps its own value; lane 9 reads lane 8.
    assert_eq!((got[0].lane(8), got[0].lane(9)), (80, 80));
    // Lane 6 would read lane 8 (another segment): keeps its own.
    assert_eq!((got[1].lane(5), got[1].lane(6)), (70, 60));
    assert_eq!((got[2].lane(1), got[2].lane(13)), (50, 90));
    assert_eq!((got[3].lane(0), got[3].lane(9)), (30, 110));
    assert_eq!(got[4].lane(17), 30);
    assert_eq!(got[5].lane(0), 310);
}

#[test]
fn shuffle_from_an_inactive_lane_is_poisoned_and_its_use_reported() {
    let mut out = Global::new("out", 32, 0u32);
    let d = run_warp(0, |w| {
        let v = w.lane_id();
        let low = w.lane_id().map(|l| l < 16);
        let saved = w.push_active(&low, "if (lane < 16)")?;
        // Lanes 0..15 read lanes 16..31, which are inactive.
        let r = w.shfl_xor_sync(0xffff, &v, 16, 32, "shfl from inactive")?;
        assert_eq!(r.poison_mask() & 0xffff, 0xffff);
        w.st_global(&mut out, &w.lane_id().map(|l| l as usize), &r, "store poison")?;
        w.pop_active(saved);
        Ok(())
    });
    assert_eq!(kinds(&d), [DiagKind::ShuffleSourceInactive, DiagKind::PoisonUsed]);
    assert_eq!(d[0].lanes, 0xffff);
    assert_eq!(out.poisoned_elements().count(), 16);
}

#[test]
fn poison_that_is_computed_but_unused_is_not_reported() {
    let d = run_warp(0, |w| {
        let v = w.lane_id();
        let low = w.lane_id().map(|l| l < 16);
        let saved = w.push_active(&low, "if (lane < 16)")?;
        let _unused = w.shfl_xor_sync(0xffff, &v, 16, 32, "bad shfl")?;
        w.pop_active(saved);
        let ok = w.shfl_xor_sync(FULL_MASK, &v, 1, 32, "good shfl")?;
        let _ = w.branch(&ok.map(|x| x < 100), "uses only clean lanes")?;
        Ok(())
    });
    assert_eq!(kinds(&d), [DiagKind::ShuffleSourceInactive]);
}

#[test]
fn masks_are_checked_against_the_executing_lanes() {
    let d = run_warp(0, |w| {
        let pred = w.lane_id().map(|l| l % 3 == 0);
        // Every lane calls, the mask names only the low half.
        let b = w.ballot_sync(0x0000_ffff, &pred, "half mask")?;
        assert_eq!(b.lane(0), 0b1001_0010_0100_1001);
        let low = w.lane_id().map(|l| l < 8);
        let saved = w.push_active(&low, "if (lane < 8)")?;
        // Only 8 lanes run, the mask names all 32.
        let any = w.any_sync(FULL_MASK, &pred, "full mask, 8 lanes")?;
        assert!(any.lane(0));
        w.pop_active(saved);
        let all = w.all_sync(FULL_MASK, &w.lane_id().map(|l| l < 40), "all")?;
        assert!(all.lane(31));
        w.syncwarp_lanes(&w.lane_id().map(|l| if l == 5 { 0xff } else { FULL_MASK }), "sw")?;
        Ok(())
    });
    assert_eq!(
        kinds(&d),
        [
            DiagKind::CallerNotInMask,
            DiagKind::MaskNamesInactiveLanes,
            DiagKind::SyncwarpMaskMismatch
        ]
    );
    assert_eq!((d[0].lanes, d[1].lanes, d[2].lanes), (0xffff_0000, 0xffff_ff00, 1 << 5));
}

#[test]
fn shared_races_need_a_barrier_and_same_value_writes_are_benign() {
    let d = run_warp(4, |w| {
        let zero = Lanes::splat(0usize);
        // Every lane writes word 0 with its lane id: a write-write race.
        w.st_shared(&zero, &w.lane_id(), "racy write")?;
        // Every lane writes 7 into word 1: benign.
        w.st_shared(&Lanes::splat(1), &Lanes::splat(7), "same value")?;
        // Lanes 0 and 1 write words 2 and 3.
        let two = w.lane_id().map(|l| l < 2);
        let saved = w.push_active(&two, "lanes 0, 1")?;
        w.st_shared(&w.lane_id().map(|l| 2 + l as usize), &w.lane_id(), "own word")?;
        w.pop_active(saved);
        // Reading the neighbour's word without a barrier: a race; after __syncwarp: fine.
        let saved = w.push_active(&two, "lanes 0, 1")?;
        w.ld_shared(&w.lane_id().map(|l| 2 + (l ^ 1) as usize), "neighbour, no barrier")?;
        w.syncwarp(0b11, "syncwarp")?;
        w.ld_shared(&w.lane_id().map(|l| 2 + (l ^ 1) as usize), "neighbour, after barrier")?;
        w.pop_active(saved);
        Ok(())
    });
    assert_eq!(
        kinds(&d),
        [DiagKind::SharedRace, DiagKind::SharedRaceSameValue, DiagKind::SharedRace]
    );
    assert_eq!(d[0].lanes, 0xffff_fffe, "lane 0 wrote first");
    assert_eq!(d[2].label, "neighbour, no barrier");
}

#[test]
fn out_of_bounds_and_uninitialized_accesses_are_reported() {
    let input = [1.0f32, 2.0];
    let mut out = Global::new("out", 2, 0.0f32);
    let d = run_warp(8, |w| {
        let lane = w.lane_id().map(|l| l as usize);
        let v = w.ld_global(&input, &lane, "x[lane]")?;
        assert_eq!((v.lane(1), v.poison_mask()), (2.0, !0b11));
        let first = w.lane_id().map(|l| l == 0);
        let saved = w.push_active(&first, "lane 0")?;
        w.st_global(&mut out, &Lanes::splat(5), &v, "out[5]")?;
        w.ld_shared(&Lanes::splat(3), "never written")?;
        w.ld_shared(&Lanes::splat(9), "past the allocation")?;
        w.st_shared(&Lanes::splat(8), &Lanes::splat(1), "past the allocation")?;
        w.pop_active(saved);
        Ok(())
    });
    assert_eq!(
        kinds(&d),
        [
            DiagKind::GlobalOutOfBounds,
            DiagKind::GlobalOutOfBounds,
            DiagKind::UninitializedSharedRead,
            DiagKind::SharedOutOfBounds,
            DiagKind::SharedOutOfBounds
        ]
    );
    assert_eq!((d[0].address, d[1].address), (Some(2), Some(5)));
}

#[test]
fn non_uniform_branches_and_oversized_shifts_are_reported() {
    let d = run_warp(0, |w| {
        let taken = w.branch(&w.lane_id().map(|l| l >= 30), "expected uniform")?;
        assert!(!taken, "the lowest active lane decides");
        let s = w.shl(&Lanes::splat(1), &w.lane_id().map(|l| l + 1), "1 << (lane + 1)")?;
        assert_eq!((s.lane(30), s.poison_mask()), (1 << 31, 1 << 31));
        let _ = w.shfl_xor_sync(FULL_MASK, &w.lane_id(), 1, 12, "width 12")?;
        Ok(())
    });
    assert_eq!(
        kinds(&d),
        [DiagKind::NonUniformBranch, DiagKind::ShiftOverflow, DiagKind::InvalidShuffleWidth]
    );
    assert_eq!(d[0].lanes, 0b11 << 30);
}

/// Warps meet at `__syncthreads`: a neighbour's shared word is safe after the barrier,
/// racy without it; a diverged warp or an early return at a barrier is reported.
#[test]
fn syncthreads_orders_warps_and_divergent_barriers_are_reported() {
    #[derive(Default)]
    struct Regs {
        seen: u32,
    }
    let run = |barrier: bool, diverge: bool, exit_warp1: bool| {
        let mut m = Machine::new(DiagPolicy::Collect, Schedule::InOrder);
        let mut seen = Vec::new();
        m.launch_phased(grid(2, 3, 3), |w: &mut Warp<'_>, r: &mut Regs, phase| {
            let me = w.warp_idx() as usize;
            let lane0 = w.lane_id().map(|l| l == 0);
            if phase == 0 {
                if exit_warp1 && me == 1 {
                    w.exit();
                    return Ok(Arrive::Exit);
                }
                let saved = w.push_active(&lane0, "lane 0")?;
                w.st_shared(&Lanes::splat(me), &Lanes::splat(me as u32 + 10), "s[warp]")?;
                w.pop_active(saved);
                if diverge && me == 2 {
                    w.push_active(&lane0, "diverged at the barrier")?;
                }
                if barrier {
                    return Ok(Arrive::Barrier("__syncthreads()"));
                }
            }
            let next = (me + 1) % 3;
            let saved = w.push_active(&lane0, "lane 0")?;
            r.seen = w.ld_shared(&Lanes::splat(next), "s[warp + 1]")?.lane(0);
            w.pop_active(saved);
            seen.push(r.seen);
            Ok(Arrive::Exit)
        })
        .unwrap();
        (kinds(&m.take_diagnostics().0), seen)
    };
    let (d, seen) = run(true, false, false);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(seen, [11, 12, 10, 11, 12, 10]);
    // Without the barrier, warp 2 reads a word warp 0 wrote (race) and warps 0, 1 read
    // words not written yet.
    let (d, _) = run(false, false, false);
    assert!(d.contains(&DiagKind::SharedRace) && d.contains(&DiagKind::UninitializedSharedRead));
    assert!(run(true, true, false).0.contains(&DiagKind::BarrierDivergence));
    assert!(run(true, false, true).0.contains(&DiagKind::BarrierDivergence));
}

#[test]
fn fail_fast_stops_at_the_first_finding_and_the_watchdog_stops_endless_loops() {
    let mut m = Machine::new(DiagPolicy::FailFast, Schedule::InOrder);
    let err = m
        .launch(grid(1, 1, 0), |w| {
            w.ballot_sync(1, &Lanes::splat(true), "bad mask")?;
            unreachable!("a fatal diagnostic stops the warp");
        })
        .unwrap_err();
    assert!(matches!(err, SimError::Fatal(d) if d.kind == DiagKind::CallerNotInMask));
    let mut m = Machine::new(DiagPolicy::Collect, Schedule::InOrder);
    m.set_step_limit(1000);
    let err = m
        .launch(grid(1, 1, 0), |w| {
            loop {
                w.syncwarp(FULL_MASK, "spin")?;
            }
        })
        .unwrap_err();
    assert!(matches!(err, SimError::Watchdog { limit: 1000, .. }));
    let err = m.launch(grid(1, 0, 0), |_| Ok(())).unwrap_err();
    assert!(matches!(err, SimError::InvalidLaunch(_)));
}

#[test]
fn shuffled_schedules_are_deterministic_and_expose_last_writer_wins() {
    let winner = |schedule| {
        let mut m = Machine::new(DiagPolicy::Collect, schedule);
        let mut out = Global::new("out", 1, 0u32);
        m.launch(grid(1, 1, 1), |w| {
            w.st_shared(&Lanes::splat(0), &w.lane_id(), "everyone writes s[0]")?;
            w.syncwarp(FULL_MASK, "sync")?;
            let v = w.ld_shared(&Lanes::splat(0), "read s[0]")?;
            let lane0 = w.lane_id().map(|l| l == 0);
            let saved = w.push_active(&lane0, "lane 0")?;
            w.st_global(&mut out, &Lanes::splat(0), &v, "out[0]")?;
            w.pop_active(saved);
            Ok(())
        })
        .unwrap();
        out.data()[0]
    };
    assert_eq!(winner(Schedule::InOrder), 31);
    let a: Vec<u32> = (0..8).map(|s| winner(Schedule::Shuffled { seed: s })).collect();
    let b: Vec<u32> = (0..8).map(|s| winner(Schedule::Shuffled { seed: s })).collect();
    assert_eq!(a, b, "same seed, same schedule");
    assert!(a.iter().any(|&x| x != 31), "some schedule lets another lane win: {a:?}");
}

/// The load fast path (a lane re-reading its own word) must not hide a later racing write.
#[test]
fn a_write_after_repeated_own_reads_is_still_a_race() {
    let d = run_warp(32, |w| {
        let own = w.lane_id().map(|l| l as usize);
        w.st_shared(&own, &w.lane_id(), "s[lane] = lane")?;
        for _ in 0..3 {
            w.ld_shared(&own, "s[lane], again and again")?;
        }
        // Lane l now writes its neighbour's word with no barrier since their reads.
        let neighbour = w.lane_id().map(|l| (l ^ 1) as usize);
        w.st_shared(&neighbour, &Lanes::splat(9), "s[lane ^ 1] = 9")?;
        Ok(())
    });
    assert_eq!(kinds(&d), [DiagKind::SharedRace]);
    assert_eq!((d[0].lanes, d[0].label), (FULL_MASK, "s[lane ^ 1] = 9"));
}
