//! The execution model on small hand-written kernels: CUDA semantics of every primitive, each
//! kind of diagnostic raised exactly where it should be (and nowhere else), and the executor:
//! barriers, interleaving under seeded schedules, part-warp tasks, blocks that cooperate
//! through global memory, grids too large to hold.

// Grouped selection (docs/contract.md §8): the simulated kernel against the reference.
#[path = "simulator/grouped.rs"]
mod grouped;
#[path = "simulator/pick.rs"]
mod pick;

use std::cell::RefCell;

use warp_sim::{
    BufId, DiagKind, DiagPolicy, Diagnostic, FULL_MASK, Global, Grid, Lanes, Machine, Rows,
    Schedule, SimError, VirtualSource, Warp, WordSource,
};

fn kinds(d: &[Diagnostic]) -> Vec<DiagKind> {
    d.iter().map(|d| d.kind).collect()
}

/// Runs a one-warp kernel with `shared_words` words and returns its findings.
fn run_warp<K>(shared_words: usize, kernel: K) -> Vec<Diagnostic>
where
    K: AsyncFn(Warp<'_>) -> Result<(), SimError>,
{
    let mut m = Machine::new(DiagPolicy::Collect, Schedule::InOrder);
    m.launch(Grid::new(1, 1, shared_words), kernel).unwrap();
    m.take_diagnostics().0
}

/// A collecting machine on `schedule` with a one-word global buffer `out`.
fn machine_with_out(schedule: Schedule) -> (Machine, BufId) {
    let mut m = Machine::new(DiagPolicy::Collect, schedule);
    let out = m.alloc(Global::zeroed("out", 1).unwrap());
    (m, out)
}

#[test]
fn butterfly_and_redux_sums_reach_every_lane() {
    let sums = RefCell::new(Vec::new());
    let d = run_warp(0, async |mut w| {
        let mut v = w.lane_id();
        for offset in [16, 8, 4, 2, 1] {
            let other = w.shfl_xor_sync(FULL_MASK, &v, offset, 32, "sum")?;
            v = v.zip(&other, |a, b| a + b);
        }
        let r = w.reduce_add_sync(FULL_MASK, &w.lane_id(), "redux")?;
        let lo = w.reduce_min_sync(FULL_MASK, &w.lane_id().map(|l| l + 3), "min")?;
        let hi = w.reduce_max_sync(FULL_MASK, &w.lane_id(), "max")?;
        sums.borrow_mut().extend([v, r, lo, hi]);
        Ok(())
    });
    assert!(d.is_empty());
    let s = sums.into_inner();
    assert_eq!((s[0], s[1]), (Lanes::splat(496), Lanes::splat(496)));
    assert_eq!((s[2].lane(7), s[3].lane(0)), (3, 31));
}

#[test]
fn shuffles_follow_cuda_width_semantics() {
    let got = RefCell::new(Vec::new());
    let d = run_warp(0, async |mut w| {
        let v = w.lane_id().map(|l| l * 10);
        let mut g = got.borrow_mut();
        g.push(w.shfl_up_sync(FULL_MASK, &v, 1, 8, "up")?);
        g.push(w.shfl_down_sync(FULL_MASK, &v, 2, 8, "down")?);
        g.push(w.shfl_xor_sync(FULL_MASK, &v, 4, 8, "xor")?);
        g.push(w.shfl_sync(FULL_MASK, &v, 3, 8, "bcast")?);
        g.push(w.shfl_sync(FULL_MASK, &v, 35, 32, "src % 32")?);
        g.push(w.shfl_idx_sync(FULL_MASK, &v, &w.lane_id().map(|l| 31 - l), 32, "rev")?);
        Ok(())
    });
    assert!(d.is_empty(), "{d:?}");
    let got = got.into_inner();
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
    let mut m = Machine::new(DiagPolicy::Collect, Schedule::InOrder);
    let out = m.alloc(Global::zeroed("out", 32).unwrap());
    m.launch(Grid::new(1, 1, 0), async |mut w| {
        let v = w.lane_id();
        let low = w.lane_id().map(|l| l < 16);
        let saved = w.push_active(&low, "if (lane < 16)")?;
        // Lanes 0..15 read lanes 16..31, which are inactive.
        let r = w.shfl_xor_sync(0xffff, &v, 16, 32, "shfl from inactive")?;
        assert_eq!(r.poison_mask() & 0xffff, 0xffff);
        w.st_global(out, &w.lane_id().map(u64::from), &r, "store poison").await?;
        w.pop_active(saved);
        Ok(())
    })
    .unwrap();
    let d = m.take_diagnostics().0;
    assert_eq!(kinds(&d), [DiagKind::ShuffleSourceInactive, DiagKind::PoisonUsed]);
    assert_eq!(d[0].lanes, 0xffff);
    assert_eq!(m.global(out).poisoned_elements().count(), 16);
}

#[test]
fn poison_that_is_computed_but_unused_is_not_reported() {
    let d = run_warp(0, async |mut w| {
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
    let d = run_warp(0, async |mut w| {
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
        let masks = w.lane_id().map(|l| if l == 5 { 0xff } else { FULL_MASK });
        w.syncwarp_lanes(&masks, "sw").await?;
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
    let d = run_warp(4, async |mut w| {
        let zero = Lanes::splat(0u32);
        // Every lane writes word 0 with its lane id: a write-write race.
        w.st_shared(&zero, &w.lane_id(), "racy write").await?;
        // Every lane writes 7 into word 1: benign.
        w.st_shared(&Lanes::splat(1), &Lanes::splat(7), "same value").await?;
        // Lanes 0 and 1 write words 2 and 3.
        let two = w.lane_id().map(|l| l < 2);
        let saved = w.push_active(&two, "lanes 0, 1")?;
        w.st_shared(&w.lane_id().map(|l| 2 + l), &w.lane_id(), "own word").await?;
        // Reading the neighbour's word without a barrier: a race; after __syncwarp: fine.
        w.ld_shared(&w.lane_id().map(|l| 2 + (l ^ 1)), "neighbour, no barrier").await?;
        w.syncwarp(0b11, "syncwarp").await?;
        w.ld_shared(&w.lane_id().map(|l| 2 + (l ^ 1)), "neighbour, after barrier").await?;
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

/// The load fast path (a lane re-reading its own word) must not hide a later racing write.
#[test]
fn a_write_after_repeated_own_reads_is_still_a_race() {
    let d = run_warp(32, async |mut w| {
        let own = w.lane_id();
        w.st_shared(&own, &w.lane_id(), "s[lane] = lane").await?;
        for _ in 0..3 {
            w.ld_shared(&own, "s[lane], again and again").await?;
        }
        // Lane l now writes its neighbour's word with no barrier since their reads.
        w.st_shared(&w.lane_id().map(|l| l ^ 1), &Lanes::splat(9), "s[lane ^ 1] = 9").await?;
        Ok(())
    });
    assert_eq!(kinds(&d), [DiagKind::SharedRace]);
    assert_eq!((d[0].lanes, d[0].label), (FULL_MASK, "s[lane ^ 1] = 9"));
}

#[test]
fn out_of_bounds_uninitialized_foreign_and_misaligned_accesses_are_reported() {
    let input = VirtualSource::new(64, 16, |i| i as f32);
    let mut m = Machine::new(DiagPolicy::Collect, Schedule::InOrder);
    let out = m.alloc(Global::zeroed("out", 2).unwrap());
    let mut grid = Grid::new(1, 1, 8);
    grid.rows = Some(Rows::new(1, 1)); // block 0 owns row 0: x[0..16]
    m.launch(grid, async |mut w| {
        let lane = w.lane_id().map(u64::from);
        // Lanes 16..31 read row 1, which block 0 does not own.
        let v = w.ld_input(&input, &lane, "x[lane]").await?;
        assert_eq!((v.lane(1), v.lane(20)), (1.0f32.to_bits(), 20.0f32.to_bits()));
        let first = w.lane_id().map(|l| l == 0);
        let saved = w.push_active(&first, "lane 0")?;
        w.ld_input(&input, &Lanes::splat(64), "x[64]").await?;
        w.st_global(out, &Lanes::splat(5), &v, "out[5]").await?;
        w.ld_shared(&Lanes::splat(3), "never written").await?;
        w.ld_shared(&Lanes::splat(9), "past the allocation").await?;
        w.st_shared(&Lanes::splat(8), &Lanes::splat(1), "past the allocation").await?;
        w.ld_input_v4(&input, &Lanes::splat(2), "float4 at 2").await?;
        w.pop_active(saved);
        Ok(())
    })
    .unwrap();
    let d = m.take_diagnostics().0;
    assert_eq!(
        kinds(&d),
        [
            DiagKind::ForeignAddress,
            DiagKind::GlobalOutOfBounds,
            DiagKind::GlobalOutOfBounds,
            DiagKind::UninitializedSharedRead,
            DiagKind::SharedOutOfBounds,
            DiagKind::SharedOutOfBounds,
            DiagKind::MisalignedAccess,
        ]
    );
    assert_eq!((d[0].lanes, d[1].address, d[2].address), (0xffff_0000, Some(64), Some(5)));
}

/// An input of 8-byte elements (`double`, `long long`): `word64` holds all 64 bits.
struct Wide<'a>(&'a [u64]);

impl warp_sim::Source for Wide<'_> {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }
    fn word(&self, i: u64) -> u32 {
        self.0[i as usize] as u32
    }
    fn word64(&self, i: u64) -> u64 {
        self.0[i as usize]
    }
    fn row_len(&self) -> Option<u64> {
        None
    }
    fn elem_bytes(&self) -> u32 {
        8
    }
}

/// 8-byte elements: loaded and stored whole (both halves), with the usual bounds checks; an
/// access of the wrong width — a 4-byte load of an 8-byte input or buffer, an 8-byte one of a
/// 4-byte input or buffer — is an error, not a value read as another type.
#[test]
fn eight_byte_elements_load_and_store_whole() {
    let values: Vec<u64> = (0..40).map(|i| 0xfff8_0000_0000_0000 | i).collect();
    let input = Wide(&values);
    let narrow = WordSource::new(&[1, 2, 3], 0, 4);
    let mut m = Machine::new(DiagPolicy::Collect, Schedule::InOrder);
    let out = m.alloc(Global::zeroed("out", 32).unwrap().with_elem_bytes(8).unwrap());
    let words = m.alloc(Global::zeroed("words", 32).unwrap());
    let got = RefCell::new(Vec::new());
    m.launch(Grid::new(1, 1, 0), async |mut w| {
        let lane = w.lane_id().map(u64::from);
        let v = w.ld_input64(&input, &lane.map(|l| l + 8), "x[lane + 8]").await?;
        w.st_global64(out, &lane, &v, "out[lane] = v").await?;
        let back = w.ld_global64(out, &lane, "out[lane]").await?;
        got.borrow_mut().extend([v.lane(1), back.lane(31)]);
        let first = w.lane_id().map(|l| l == 0);
        let saved = w.push_active(&first, "lane 0")?;
        w.ld_input64(&input, &Lanes::splat(40), "x[40]: past the end").await?;
        let refusals = [
            w.ld_input(&input, &lane, "a 4-byte load of x").await.map(|_| ()),
            w.ld_input64(&narrow, &lane, "an 8-byte load of floats").await.map(|_| ()),
            w.ld_global(out, &lane, "a 4-byte load of out").await.map(|_| ()),
            w.st_global64(words, &lane, &v, "an 8-byte store to words").await,
        ];
        for r in refusals {
            assert!(matches!(r, Err(SimError::InvalidLaunch(_))), "{r:?}");
        }
        w.pop_active(saved);
        Ok(())
    })
    .unwrap();
    let d = m.take_diagnostics().0;
    assert_eq!(kinds(&d), [DiagKind::GlobalOutOfBounds]);
    assert_eq!(*got.borrow(), [0xfff8_0000_0000_0009, 0xfff8_0000_0000_0027]);
    assert_eq!(m.global(out).elements()[5], 0xfff8_0000_0000_000d);
}

/// A `__syncwarp` orders the lanes' global accesses as it orders their shared ones: a lane
/// reading what another lane wrote before a `__syncwarp` both took part in does not race;
/// without it, or with the writer left out of the mask, it does.
#[test]
fn a_syncwarp_orders_global_accesses_within_a_warp() {
    let run = |mask: Option<u32>| {
        let (mut m, _) = machine_with_out(Schedule::InOrder);
        let buf = m.alloc(Global::zeroed("buf", 32).unwrap());
        m.launch(Grid::new(1, 1, 0), async |mut w| {
            let lane = w.lane_id().map(u64::from);
            w.st_global(buf, &lane, &w.lane_id(), "buf[lane] = lane").await?;
            if let Some(mask) = mask {
                let saved = w.push_active_mask(mask);
                w.syncwarp(mask, "__syncwarp(mask)").await?;
                w.pop_active(saved);
            }
            let next = lane.map(|l| (l + 1) % 32);
            w.ld_global(buf, &next, "buf[lane + 1]").await?;
            Ok(())
        })
        .unwrap();
        kinds(&m.take_diagnostics().0)
    };
    assert_eq!(run(Some(FULL_MASK)), []);
    assert_eq!(run(None), [DiagKind::GlobalRace]);
    let without_lane_5 = run(Some(!(1 << 5)));
    assert_eq!(without_lane_5, [DiagKind::GlobalRace]);
}

/// Inputs of 2-byte elements: one element per 2-byte load, eight per 16-byte load (aligned to
/// eight elements), a `float4` load of them refused; a buffer of 2-byte elements stores the
/// low 16 bits of a value, as a 16-bit store does.
#[test]
fn two_byte_elements_load_eight_to_16_bytes_and_store_16_bits() {
    let words: Vec<u32> = (0..64).map(|i| 0x3c00 + i).collect();
    let input = WordSource::new(&words, 0, 2);
    let mut m = Machine::new(DiagPolicy::Collect, Schedule::InOrder);
    let out = m.alloc(Global::zeroed("out", 32).unwrap().with_elem_bytes(2).unwrap());
    let got = RefCell::new(Vec::new());
    m.launch(Grid::new(1, 1, 0), async |mut w| {
        let lane = w.lane_id().map(u64::from);
        let one = w.ld_input(&input, &lane, "x[lane]").await?;
        let eight = w.ld_input_v8(&input, &Lanes::splat(8), "uint4 at 8").await?;
        got.borrow_mut().extend([one.lane(5), eight[0].lane(0), eight[7].lane(0)]);
        let first = w.lane_id().map(|l| l == 0);
        let saved = w.push_active(&first, "lane 0")?;
        w.ld_input_v8(&input, &Lanes::splat(4), "uint4 at 4").await?;
        let refused = w.ld_input_v4(&input, &Lanes::splat(0), "float4 of halves").await;
        assert!(matches!(refused, Err(SimError::InvalidLaunch(_))), "{refused:?}");
        w.pop_active(saved);
        let wide = w.lane_id().map(|l| 0xabcd_0000 | l);
        w.st_global(out, &lane, &wide, "out[lane] = (half) v").await?;
        let back = w.ld_global(out, &lane, "out[lane]").await?;
        got.borrow_mut().push(back.lane(9));
        Ok(())
    })
    .unwrap();
    let d = m.take_diagnostics().0;
    assert_eq!(kinds(&d), [DiagKind::MisalignedAccess]);
    assert_eq!((d[0].address, d[0].label), (Some(4), "uint4 at 4"));
    assert_eq!(*got.borrow(), [0x3c05, 0x3c08, 0x3c0f, 9]);
    assert_eq!(m.global(out).data()[31], 31);
}

#[test]
fn uniformity_shifts_widths_and_integer_widths_are_checked_where_used() {
    let d = run_warp(0, async |mut w| {
        let taken = w.branch(&w.lane_id().map(|l| l >= 30), "expected uniform")?;
        assert!(!taken, "the lowest active lane decides");
        let cnt = w.lane_id().map(|l| if l == 3 { 7 } else { 8 });
        assert_eq!(w.uniform(&cnt, "count")?, 8);
        let s = w.shl(&Lanes::splat(1), &w.lane_id().map(|l| l + 1), "1 << (lane + 1)")?;
        assert_eq!((s.lane(30), s.poison_mask()), (1 << 31, 1 << 31));
        let _ = w.shfl_xor_sync(FULL_MASK, &w.lane_id(), 1, 12, "width 12")?;
        // row_id * m in 32 bits wraps from 2^32 on; in 64 bits it does not.
        let row = Lanes::splat(1u32 << 23);
        let wrapped = w.mul_u32(&row, &Lanes::splat(512), "row_id * m (u32)")?;
        assert_eq!(wrapped.lane(0), 0);
        let wide = w.mul_u64(&row.map(u64::from), &Lanes::splat(512), "row_id * m (u64)")?;
        assert_eq!(wide.lane(0), 1 << 32);
        w.check(&w.lane_id().map(|l| l != 9), "lane 9 fails")?;
        Ok(())
    });
    assert_eq!(
        kinds(&d),
        [
            DiagKind::NonUniformBranch,
            DiagKind::NonUniformValue,
            DiagKind::ShiftOverflow,
            DiagKind::InvalidShuffleWidth,
            DiagKind::IntegerOverflow,
            DiagKind::AssertFailed,
        ]
    );
    assert_eq!((d[0].lanes, d[1].lanes, d[5].lanes), (0b11 << 30, 1 << 3, 1 << 9));
}

/// Warps meet at `__syncthreads`: a neighbour's shared word is safe after the barrier, racy
/// without it; a diverged warp or an early return at a barrier is reported, never a hang.
#[test]
fn syncthreads_orders_warps_and_divergent_barriers_are_reported() {
    let run = |barrier: bool, diverge: bool, exit_warp1: bool| {
        let mut m = Machine::new(DiagPolicy::Collect, Schedule::InOrder);
        let seen = RefCell::new(Vec::new());
        m.launch(Grid::new(2, 3, 3), async |mut w| {
            let me = w.warp_idx();
            let lane0 = w.lane_id().map(|l| l == 0);
            if exit_warp1 && me == 1 {
                return Ok(());
            }
            let saved = w.push_active(&lane0, "lane 0")?;
            w.st_shared(&Lanes::splat(me), &Lanes::splat(me + 10), "s[warp]").await?;
            w.pop_active(saved);
            let saved = if diverge && me == 2 {
                w.push_active(&lane0, "diverged")?
            } else {
                w.active_mask()
            };
            if barrier {
                w.syncthreads("__syncthreads()").await?;
            }
            w.pop_active(saved);
            let saved = w.push_active(&lane0, "lane 0")?;
            let v = w.ld_shared(&Lanes::splat((me + 1) % 3), "s[warp + 1]").await?;
            w.pop_active(saved);
            seen.borrow_mut().push(v.lane(0));
            Ok(())
        })
        .unwrap();
        (kinds(&m.take_diagnostics().0), seen.into_inner())
    };
    let (d, seen) = run(true, false, false);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(seen, [11, 12, 10, 11, 12, 10]);
    // Without the barrier, warp 2 reads a word warp 0 wrote (race) and warps 0, 1 read words
    // not written yet.
    let (d, _) = run(false, false, false);
    assert!(d.contains(&DiagKind::SharedRace) && d.contains(&DiagKind::UninitializedSharedRead));
    assert!(run(true, true, false).0.contains(&DiagKind::BarrierDivergence));
    assert!(run(true, false, true).0.contains(&DiagKind::BarrierDivergence));
}

/// Shared atomics count every lane of every warp, none racing with another; a plain load of
/// the word races with them until a barrier. `__syncthreads_or` is the block's vote at each
/// barrier, whichever warp gets there first.
#[test]
fn shared_atomics_and_syncthreads_or_are_block_wide() {
    let run = |schedule: Schedule, barrier: bool| {
        let mut m = Machine::new(DiagPolicy::Collect, schedule);
        let seen = RefCell::new(Vec::new());
        m.launch(Grid::new(1, 4, 2), async |mut w| {
            let me = w.warp_idx();
            let clears = w.lane_id().map(|l| l == 0 && me < 2);
            let saved = w.push_active(&clears, "lane 0 of warps 0, 1")?;
            w.st_shared(&Lanes::splat(me), &Lanes::splat(0), "s[warp] = 0").await?;
            w.pop_active(saved);
            w.syncthreads("after clearing").await?;
            let odd = w.lane_id().map(|l| l % 2 == 1);
            let saved = w.push_active(&odd, "odd lanes")?;
            w.atomic_add_shared(&Lanes::splat(0), &Lanes::splat(me + 1), "atomicAdd(s, w + 1)")
                .await?;
            w.pop_active(saved);
            if barrier {
                w.syncthreads("after counting").await?;
            }
            let total = w.ld_shared(&Lanes::splat(0), "s[0]").await?;
            // warp 2 alone votes in the first round, none in the second
            let first = w.syncthreads_or(&Lanes::splat(me == 2), "vote 1").await?;
            let second = w.syncthreads_or(&Lanes::splat(false), "vote 2").await?;
            seen.borrow_mut().push((total.lane(0), first, second));
            Ok(())
        })
        .unwrap();
        (kinds(&m.take_diagnostics().0), seen.into_inner())
    };
    for schedule in [Schedule::InOrder, Schedule::Shuffled { seed: 3 }] {
        let (d, seen) = run(schedule, true);
        assert!(d.is_empty(), "{d:?}");
        // 16 odd lanes of each warp add its number + 1: 16 * (1 + 2 + 3 + 4)
        assert_eq!(seen, vec![(160, true, false); 4]);
    }
    assert!(run(Schedule::InOrder, false).0.contains(&DiagKind::SharedRace));
}

#[test]
fn fail_fast_stops_at_the_first_finding_and_the_watchdog_stops_endless_loops() {
    let mut m = Machine::new(DiagPolicy::FailFast, Schedule::InOrder);
    let err = m
        .launch(Grid::new(1, 1, 0), async |mut w| {
            w.ballot_sync(1, &Lanes::splat(true), "bad mask")?;
            unreachable!("a fatal diagnostic stops the warp");
        })
        .unwrap_err();
    assert!(matches!(err, SimError::Fatal(d) if d.kind == DiagKind::CallerNotInMask));
    let mut m = Machine::new(DiagPolicy::Collect, Schedule::InOrder);
    m.set_step_limit(1000);
    let err = m
        .launch(Grid::new(1, 1, 0), async |mut w| {
            loop {
                w.syncwarp(FULL_MASK, "spin").await?;
            }
        })
        .unwrap_err();
    assert!(matches!(err, SimError::Watchdog { limit: 1000, .. }));
    let err = m.launch(Grid::new(1, 0, 0), async |_| Ok(())).unwrap_err();
    assert!(matches!(err, SimError::InvalidLaunch(_)));
}

#[test]
fn shuffled_schedules_are_deterministic_and_expose_last_writer_wins() {
    let winner = |schedule| {
        let (mut m, out) = machine_with_out(schedule);
        m.launch(Grid::new(1, 1, 1), async |mut w| {
            w.st_shared(&Lanes::splat(0), &w.lane_id(), "everyone writes s[0]").await?;
            w.syncwarp(FULL_MASK, "sync").await?;
            let v = w.ld_shared(&Lanes::splat(0), "read s[0]").await?;
            let lane0 = w.lane_id().map(|l| l == 0);
            let saved = w.push_active(&lane0, "lane 0")?;
            w.st_global(out, &Lanes::splat(0), &v, "out[0]").await?;
            w.pop_active(saved);
            Ok(())
        })
        .unwrap();
        m.global(out).data()[0]
    };
    assert_eq!(winner(Schedule::InOrder), 31);
    let a: Vec<u32> = (0..8).map(|s| winner(Schedule::Shuffled { seed: s })).collect();
    let b: Vec<u32> = (0..8).map(|s| winner(Schedule::Shuffled { seed: s })).collect();
    assert_eq!(a, b, "same seed, same schedule");
    assert!(a.iter().any(|&x| x != 31), "some schedule lets another lane win: {a:?}");
}

/// Warps interleave at memory operations: two warps that increment one shared counter with
/// a plain read-modify-write lose an update under some schedules — the race changes the
/// output, not only the shadow state.
#[test]
fn warps_interleave_at_memory_operations_so_a_race_changes_the_output() {
    let total = |schedule| {
        let (mut m, out) = machine_with_out(schedule);
        m.launch(Grid::new(1, 2, 1), async |mut w| {
            let lane0 = w.lane_id().map(|l| l == 0);
            let saved = w.push_active(&lane0, "lane 0")?;
            if w.warp_idx() == 0 {
                w.st_shared(&Lanes::splat(0), &Lanes::splat(0), "count = 0").await?;
            }
            w.pop_active(saved);
            w.syncthreads("__syncthreads()").await?;
            let saved = w.push_active(&lane0, "lane 0")?;
            let c = w.ld_shared(&Lanes::splat(0), "c = count").await?;
            w.st_shared(&Lanes::splat(0), &c.map(|c| c + 1), "count = c + 1").await?;
            w.pop_active(saved);
            w.syncthreads("__syncthreads()").await?;
            if w.warp_idx() == 0 {
                let saved = w.push_active(&lane0, "lane 0")?;
                let c = w.ld_shared(&Lanes::splat(0), "count").await?;
                w.st_global(out, &Lanes::splat(0), &c, "out = count").await?;
                w.pop_active(saved);
            }
            Ok(())
        })
        .unwrap();
        let races = m.take_diagnostics().1.count(DiagKind::SharedRace);
        (m.global(out).data()[0], races)
    };
    let (in_order, races) = total(Schedule::InOrder);
    assert_eq!(in_order, 2, "in order, one warp after the other");
    assert!(races > 0, "the race is found from the shadow state in any schedule");
    let outs: Vec<u32> = (0..16).map(|s| total(Schedule::Shuffled { seed: s }).0).collect();
    assert!(outs.contains(&1) && outs.contains(&2), "a lost update under some seeds: {outs:?}");
}

/// Part-warp tasks: each row's lanes run on their own; a collective that names the whole warp
/// from one row's lanes is reported, and one row's `__syncwarp` does not order another's.
#[test]
fn the_rows_of_a_part_warp_launch_are_tasks_of_their_own() {
    let mut m = Machine::new(DiagPolicy::Collect, Schedule::InOrder);
    let mut grid = Grid::new(1, 1, 4);
    grid.group_lanes = 16;
    let tasks = RefCell::new(Vec::new());
    m.launch(grid, async |mut w| {
        let lanes = w.group_lanes();
        tasks.borrow_mut().push((w.group_idx(), lanes, w.active_mask()));
        let sum = w.reduce_add_sync(lanes, &Lanes::splat(1), "row sum")?;
        assert_eq!(w.uniform(&sum, "row sum")?, 16);
        // Both rows write word 0 and sync their own lanes only: still a race between rows.
        let first = w.lane_id().map(|l| l % 16 == 0);
        let saved = w.push_active(&first, "first lane of the row")?;
        w.st_shared(&Lanes::splat(0), &Lanes::splat(w.group_idx()), "s[0] = row").await?;
        w.pop_active(saved);
        w.syncwarp(lanes, "__syncwarp(lanes)").await?;
        w.ld_shared(&Lanes::splat(0), "read s[0]").await?;
        if w.group_idx() == 1 {
            w.reduce_add_sync(FULL_MASK, &Lanes::splat(1), "whole-warp sum from one row")?;
        }
        Ok(())
    })
    .unwrap();
    assert_eq!(tasks.into_inner(), [(0, 0xffff, 0xffff), (1, 0xffff_0000, 0xffff_0000)]);
    let d = m.take_diagnostics().0;
    assert!(kinds(&d).contains(&DiagKind::SharedRace), "{d:?}");
    let whole = d.iter().find(|d| d.label == "whole-warp sum from one row").unwrap();
    assert_eq!((whole.kind, whole.lanes), (DiagKind::MaskNamesInactiveLanes, 0xffff));
}

/// Blocks resident together interleave and may cooperate through global memory: every block
/// adds itself to a counter with an atomic and spins (yielding) until all have arrived — a
/// grid barrier. In order or shuffled, it completes; with a block that never arrives, the
/// watchdog stops it instead of a hang.
#[test]
fn resident_blocks_cooperate_through_global_atomics() {
    let run = |schedule, skip: Option<u32>| {
        let mut m = Machine::new(DiagPolicy::Collect, schedule);
        m.set_step_limit(10_000);
        let counter = m.alloc(Global::zeroed("counter", 1).unwrap());
        let seen = m.alloc(Global::zeroed("seen", 4).unwrap());
        let mut grid = Grid::new(4, 1, 0);
        grid.resident = 0;
        let r = m.launch(grid, async |mut w| {
            let lane0 = w.lane_id().map(|l| l == 0);
            let saved = w.push_active(&lane0, "lane 0")?;
            if skip != Some(w.block_idx()) {
                w.atomic_add_global(counter, &Lanes::splat(0), &Lanes::splat(1), "arrive").await?;
            }
            loop {
                let c = w
                    .atomic_add_global(counter, &Lanes::splat(0), &Lanes::splat(0), "poll")
                    .await?;
                if w.uniform(&c, "count")? == 4 {
                    break;
                }
                w.yield_now().await?;
            }
            let at = Lanes::splat(u64::from(w.block_idx()));
            w.st_global(seen, &at, &Lanes::splat(1), "seen[block]").await?;
            w.pop_active(saved);
            Ok(())
        });
        (r, m.global(seen).data().to_vec())
    };
    for schedule in [Schedule::InOrder, Schedule::Shuffled { seed: 3 }] {
        let (r, seen) = run(schedule, None);
        assert!(r.is_ok(), "{r:?}");
        assert_eq!(seen, [1, 1, 1, 1]);
    }
    assert!(matches!(run(Schedule::InOrder, Some(2)).0, Err(SimError::Watchdog { .. })));
}

/// A launch may simulate a few blocks of a grid of more than 2^32 elements, its input made
/// from addresses and its output held for those blocks' rows only.
#[test]
fn a_few_blocks_of_a_grid_too_large_to_hold() {
    let (n, m_len) = (1u64 << 23, 1024u64); // 2^33 elements
    let input = VirtualSource::new(n * m_len, m_len, |i| (i % 1000) as f32);
    let mut m = Machine::new(DiagPolicy::Collect, Schedule::InOrder);
    let last = n - 1;
    let out = m.alloc(Global::window("out", n, last, 1).unwrap().with_rows(1));
    let mut grid = Grid::new(n as u32, 1, 0);
    grid.simulate = (last as u32, n as u32);
    grid.rows = Some(Rows::new(1, 1));
    m.launch(grid, async |mut w| {
        let row = u64::from(w.block_idx());
        let base = w.mul_u64(&Lanes::splat(row), &Lanes::splat(m_len), "row * M")?;
        let v = w.ld_input(&input, &base, "x[row * M]").await?;
        let lane0 = w.lane_id().map(|l| l == 0);
        let saved = w.push_active(&lane0, "lane 0")?;
        w.st_global(out, &Lanes::splat(row), &v, "out[row]").await?;
        w.pop_active(saved);
        Ok(())
    })
    .unwrap();
    assert!(m.take_diagnostics().0.is_empty());
    let want = ((last * m_len) % 1000) as f32;
    assert_eq!((m.global(out).base(), m.global(out).f32s()), (last, vec![want]));
}
