//! `gridselect` — GridSelect: WarpSelect with one shared queue and several thread blocks
//! (paper 002, §4).
//!
//! # Idea
//! A warp walks its part of the row 32 elements at a time (one per lane) and keeps the best
//! `L = max(k.next_power_of_two(), 32)` ranks seen so far, sorted, as the running top-k. An
//! element *qualifies* when its rank ([`topk_ref::order::rank`]) beats the k-th best so far.
//! Instead of WarpSelect's per-lane thread queues ([`crate::WarpSelect`]), qualified elements
//! go to **one shared queue of 32** (§4, "the size of the shared queue is set to 32"):
//!
//! 1. **Parallel two-step insertion** (Fig. 5). A ballot marks the qualified lanes; lane j's
//!    storing position is the queue length plus the number of qualified lanes below it (a
//!    prefix popcount of the ballot). Positions below 32 are stored at once (step 1). If the
//!    queue is then full it is sorted with a bitonic network and merged into the running
//!    top-k, and cleared; lanes with positions ≥ 32 then store at position − 32 (step 2).
//! 2. **Sort and merge only when the queue is full** — not whenever one lane's private queue
//!    fills, which is what makes WarpSelect slow when qualified elements cluster in few lanes.
//! 3. **Several blocks**: the row is cut into contiguous slices, each handled by its own
//!    "block" with its own queue and running top-k; the blocks' partial top-k are then merged
//!    (a bitonic merge tree) into the answer. On a GPU this is what fills the SMs for a single
//!    long row; BlockSelect and WarpSelect use one block.
//!
//! Every comparison is on unique ranks, so the k best ranks are the canonical top-k (docs/contract.md §1);
//! their indices are sorted for the output.
//!
//! # Cost
//! One pass over the row: a rank and a compare per element, vectorised per chunk of 32.
//! Qualified elements on random-order data number about `k·(1 + ln(M_b/k))` per block of
//! `M_b` elements, so there are about that many / 32 queue merges, each a 32-element bitonic
//! sort (15 stages of 16 compare-exchanges) and a bitonic rebuild of L (`(L/2)·log2 L`
//! compare-exchanges): every merge absorbs at most 32 elements but pays for all L. The merge
//! cost grows with L, which is why GPU implementations cap k at 2048. Each block also pays
//! its own warm-up (its first k elements all qualify). Extra memory: `blocks × L` ranks in
//! the scratch.
//!
//! # On a GPU
//! The queue lives in shared memory (32 slots: a small footprint, no register pressure), the
//! ballot and `__popc` give the positions, the running top-k lives in registers across the
//! warp and is merged with shuffles. The counters ([`WorkCounters`]) count one read of the
//! input, the partial results the blocks write and the merge kernel reads back, the k outputs,
//! and each sorting-network merge (queue flushes and block merges).

use topk_ref::algorithm::{RowStats, WorkCounters, grow};
use topk_ref::bitonic::{PAD, merge_sorted_runs};
use topk_ref::order::{Element, rank_index};

use crate::error::BaselineError;
use crate::job::{Job, Keyed, KeyedRun};
use crate::queue::{RunningTop, WARP, ballot, list_len};

/// GridSelect (see the [module documentation](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GridSelect {
    /// `None`: blocks from the row width ([`GridSelect::auto_blocks`]); `Some(b)`: b blocks.
    blocks: Option<usize>,
}

/// What one row's run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GridTrace {
    /// Blocks the row was cut into.
    pub blocks: usize,
    /// Queue merges (flushes of a full or final queue), over all blocks.
    pub flushes: u64,
    /// The data moved.
    pub work: WorkCounters,
}

impl GridSelect {
    /// Elements per block above which the row is cut into more blocks.
    pub const BLOCK_ELEMENTS: usize = 1 << 16;
    /// The most blocks: one per SM of an A100, the paper's GPU (§5).
    pub const MAX_BLOCKS: usize = 108;

    /// GridSelect with exactly `blocks` blocks (at least 1; rows shorter than `blocks` chunks
    /// of 32 use fewer).
    pub fn with_blocks(blocks: usize) -> Result<Self, BaselineError> {
        if blocks == 0 {
            return Err(BaselineError::invalid("blocks", "must be at least 1"));
        }
        Ok(Self { blocks: Some(blocks) })
    }

    /// Blocks for a row of `m`: one per [`Self::BLOCK_ELEMENTS`], at most [`Self::MAX_BLOCKS`].
    pub fn auto_blocks(m: usize) -> usize {
        m.div_ceil(Self::BLOCK_ELEMENTS).clamp(1, Self::MAX_BLOCKS)
    }

    /// Runs one row ([`Job`]) and reports what it did.
    pub fn trace_row<E: Element>(&self, job: Job<'_, E>) -> GridTrace {
        job.run_u32(self)
    }
}

/// One block over `slice` (whose first element has index `base`): leaves its top-L in `list`,
/// sorted best first, and returns how many times its queue was merged.
fn block<E: Element>(
    slice: &[E],
    base: u32,
    k: usize,
    key_of: impl Fn(E) -> u32 + Copy,
    list: &mut [u64],
) -> u64 {
    let mut top = RunningTop::new(list, k);
    let mut queue = [PAD; WARP];
    let mut len = 0;
    let mut flushes = 0;
    let mut ranks = [0u64; WARP];
    for (c, chunk) in slice.chunks(WARP).enumerate() {
        let mask = ballot(chunk, base + (c * WARP) as u32, key_of, top.threshold(), &mut ranks);
        if mask == 0 {
            continue;
        }
        let total = len + mask.count_ones() as usize;
        // Step 1: every qualified lane's position is the queue length plus the qualified lanes
        // below it; those below 32 store now.
        for_each_lane(mask, |j| {
            let pos = len + (mask & ((1u32 << j) - 1)).count_ones() as usize;
            if pos < WARP {
                queue[pos] = ranks[j];
            }
        });
        if total < WARP {
            len = total;
            continue;
        }
        // The queue is full: sort, merge into the running top-k, clear.
        top.absorb(&mut queue);
        queue.fill(PAD);
        flushes += 1;
        // Step 2: the lanes whose positions passed the end store at position − 32.
        for_each_lane(mask, |j| {
            let pos = len + (mask & ((1u32 << j) - 1)).count_ones() as usize;
            if pos >= WARP {
                queue[pos - WARP] = ranks[j];
            }
        });
        len = total - WARP;
    }
    if len > 0 {
        top.absorb(&mut queue);
        flushes += 1;
    }
    flushes
}

/// Calls `f(j)` for every set bit `j` of `mask`, lowest first (the qualified lanes).
#[inline(always)]
fn for_each_lane(mut mask: u32, mut f: impl FnMut(usize)) {
    while mask != 0 {
        f(mask.trailing_zeros() as usize);
        mask &= mask - 1;
    }
}

impl KeyedRun for GridSelect {
    type Trace = GridTrace;

    fn run<E: Element, K: Fn(E) -> u32 + Copy>(&self, job: Keyed<'_, E, K>) -> GridTrace {
        let Keyed { row, k, key_of, scratch, out } = job;
        let m = row.len();
        let wanted = self.blocks.unwrap_or_else(|| Self::auto_blocks(m));
        // Contiguous slices, whole chunks of 32 each.
        let span = m.div_ceil(wanted).next_multiple_of(WARP);
        let blocks = m.div_ceil(span);
        let l = list_len(k);
        let lists = grow(&mut scratch.ranks, blocks * l);
        let mut trace = GridTrace { blocks, ..GridTrace::default() };
        trace.work.sweep(m);
        for (b, list) in lists.chunks_exact_mut(l).enumerate() {
            let start = b * span;
            let slice = &row[start..m.min(start + span)];
            trace.flushes += block(slice, start as u32, k, key_of, list);
        }
        trace.work.merges = trace.flushes;
        if blocks > 1 {
            // Each block writes its partial top-k; the merge reads them all back.
            let partials = (0..blocks).map(|b| k.min(m - b * span)).sum::<usize>();
            trace.work.write(partials);
            trace.work.read(partials);
            let mut tree = WorkCounters::default();
            merge_sorted_runs(lists, l, &mut tree);
            trace.work.merges += tree.merges;
        }
        for (o, &r) in out.iter_mut().zip(&lists[..k]) {
            *o = rank_index(r);
        }
        out.sort_unstable();
        trace.work.write(k);
        trace
    }
}

// GridSelect's queues (paper 002, §4) hold key-index pairs packed in 64 bits: keys of at
// most 32 bits (`f64` and `i64` rows are refused with `TopKError::UnsupportedElement`).
topk_ref::row_select!(GridSelect, "gridselect", 32, |grid, row, k, mode, scratch, out| {
    RowStats::with_work(grid.trace_row(Job { row, k, mode, scratch, out }).work)
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::run_job;
    use topk_ref::oracle::canonical_indices;
    use topk_ref::order::Mode;

    fn trace(g: GridSelect, row: &[f32], k: usize) -> (Vec<u32>, GridTrace) {
        run_job(row, k, Mode::Largest, |job| g.trace_row(job))
    }

    #[test]
    fn queue_merges_only_when_full() {
        // An ascending row: every element qualifies, so the queue fills every 32 elements.
        let row: Vec<f32> = (0..320).map(|i| i as f32).collect();
        let (got, t) = trace(GridSelect::default(), &row, 5);
        assert_eq!(got, canonical_indices(&row, 5, Mode::Largest));
        assert_eq!(t.flushes, 10);
        // Chunk 0 fills the queue (all qualify while fewer than k are known); then 16 qualify
        // per chunk (every other element rising): two chunks fill it, 4 times, and the last
        // chunk's 16 are merged at the end.
        let row: Vec<f32> = (0..320).map(|i| if i % 2 == 0 { i as f32 } else { -1.0 }).collect();
        let (got, t) = trace(GridSelect::default(), &row, 5);
        assert_eq!(got, canonical_indices(&row, 5, Mode::Largest));
        assert_eq!(t.flushes, 1 + 4 + 1);
        // One pass, k outputs, one block.
        assert_eq!((t.work.elements_read, t.work.elements_written, t.work.passes), (320, 5, 1));
        assert_eq!(t.work.merges, 6);
    }

    #[test]
    fn two_step_insertion_straddles_a_flush() {
        // k = 1. Chunk 0 fills the queue (a flush). Chunk 1: 20 lanes beat the threshold
        // (queue 20). Chunk 2: 20 more: 12 fill the queue (step 1), a flush, 8 go in after it
        // (step 2), and the end flushes those 8. The maximum (40, lane 19 of chunk 2) is one of
        // the step-2 elements.
        let row: Vec<f32> = (0..96)
            .map(|i| match (i / 32, i % 32) {
                (0, j) => -100.0 + j as f32,
                (c, j) if j < 20 => (20 * (c - 1) + j + 1) as f32,
                _ => -1000.0,
            })
            .collect();
        let (got, t) = trace(GridSelect::default(), &row, 1);
        assert_eq!(got, [64 + 19]);
        assert_eq!(t.flushes, 3);
        for k in [2, 13, 21, 40, 96] {
            assert_eq!(
                trace(GridSelect::default(), &row, k).0,
                canonical_indices(&row, k, Mode::Largest)
            );
        }
    }

    #[test]
    fn blocks_are_merged() {
        let row: Vec<f32> = (0..1000).map(|i| ((i * 7919) % 1009) as f32).collect();
        for blocks in [1, 2, 3, 7, 40] {
            for k in [1, 31, 32, 33, 100, 999, 1000] {
                let g = GridSelect::with_blocks(blocks).unwrap();
                let (got, t) = trace(g, &row, k);
                assert_eq!(got, canonical_indices(&row, k, Mode::Largest), "b={blocks} k={k}");
                assert!(t.blocks <= blocks);
            }
        }
        // Three blocks of 352, 352 and 296: each writes its top 10, the merge reads 30 back;
        // 2 block merges.
        let g = GridSelect::with_blocks(3).unwrap();
        let (_, t) = trace(g, &row, 10);
        assert_eq!(t.blocks, 3);
        assert_eq!(t.work.elements_read, 1000 + 30);
        assert_eq!(t.work.elements_written, 30 + 10);
        assert_eq!(t.work.merges, t.flushes + 2);
        assert!(GridSelect::with_blocks(0).is_err());
        assert_eq!(GridSelect::auto_blocks(1 << 20), 16);
        assert_eq!(GridSelect::auto_blocks(1 << 24), GridSelect::MAX_BLOCKS);
    }
}
