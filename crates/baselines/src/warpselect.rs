//! `warpselect` — WarpSelect: per-lane thread queues merged warp-wide (Johnson, Douze and Jégou,
//! Faiss; described in paper 002, §2.2 and §4, as the design GridSelect improves on).
//!
//! # Idea
//! One warp walks the row 32 elements at a time, one per lane, and keeps the best
//! `L = max(k.next_power_of_two(), 32)` ranks seen so far, sorted across the warp (the *warp
//! queue*). An element whose rank ([`topk_ref::order::rank`]) beats the k-th best so far goes
//! into its **lane's own thread queue** of `T` slots. As soon as **any** thread queue is full,
//! the whole warp stops to merge: all `32·T` thread-queue slots are sorted with a bitonic
//! network and merged into the warp queue, and every thread queue is emptied. At the end of
//! the row the partly filled queues are merged once more.
//!
//! `T` grows with k (2 for k ≤ 32, 4 for k ≤ 256, 8 above), as Faiss does to balance merge
//! frequency against register use; here it is a power of two so the queue sort is a plain
//! bitonic network. The weakness GridSelect fixes (§4): when qualified elements cluster in a
//! few lanes — a rising row whose large values sit at one position mod 32 — one full lane
//! forces a merge while the other 31 queues are nearly empty, so WarpSelect merges up to `T`
//! times as often as a shared queue of 32 would.
//!
//! Ranks are unique, so the k best are the canonical top-k (docs/contract.md §1); their indices are sorted
//! for the output.
//!
//! # Cost
//! One pass over the row (a rank and a compare per element). On random-order data about
//! `k·(1 + ln(M/k))` elements qualify; each merge sorts `32·T` slots and rebuilds the warp
//! queue (`(L/2)·log2 L` compare-exchanges), so the merge work grows like `k·log k` per merge
//! and GPU implementations stop at k = 2048. A merge absorbs up to `32·T` elements where
//! GridSelect's absorbs 32, so on spread data WarpSelect merges less often. Extra memory:
//! L ranks in the scratch, `32·T` on the stack.
//!
//! # On a GPU
//! Thread queues and the warp queue live in registers; the queue sort and merge are shuffles
//! (odd-even / bitonic networks across lanes); `__any_sync` decides when to merge. Registers
//! make it fast but limit k, and one warp per row leaves most SMs idle for a single long row
//! (§5.3: BlockSelect uses up to 4 warps, GridSelect many blocks). The counters
//! ([`WorkCounters`]) count one read of the input, the k outputs and each warp-wide merge.

use topk_ref::algorithm::{RowStats, WorkCounters, grow};
use topk_ref::bitonic::PAD;
use topk_ref::order::{Element, rank_index};

use crate::job::{Job, Keyed, KeyedRun};
use crate::queue::{RunningTop, WARP, ballot, list_len};

/// The longest thread queue.
const MAX_THREAD_QUEUE: usize = 8;

/// WarpSelect (see the [module documentation](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WarpSelect;

/// Slots per lane's thread queue for `k`.
pub fn thread_queue_len(k: usize) -> usize {
    match k {
        0..=32 => 2,
        33..=256 => 4,
        _ => MAX_THREAD_QUEUE,
    }
}

impl WarpSelect {
    /// Runs one row ([`Job`]); returns the work, whose
    /// `merges` are the warp-wide queue merges.
    pub fn work_row<E: Element>(&self, job: Job<'_, E>) -> WorkCounters {
        job.run_u32(self)
    }
}

impl KeyedRun for WarpSelect {
    type Trace = WorkCounters;

    fn run<E: Element, K: Fn(E) -> u32 + Copy>(&self, job: Keyed<'_, E, K>) -> WorkCounters {
        let Keyed { row, k, key_of, scratch, out } = job;
        let t = thread_queue_len(k);
        let mut top = RunningTop::new(grow(&mut scratch.ranks, list_len(k)), k);
        let mut slots = [PAD; WARP * MAX_THREAD_QUEUE];
        let queues = &mut slots[..WARP * t];
        let mut filled = [0usize; WARP];
        let mut ranks = [0u64; WARP];
        let mut work = WorkCounters::default();
        for (c, chunk) in row.chunks(WARP).enumerate() {
            let mut mask = ballot(chunk, (c * WARP) as u32, key_of, top.threshold(), &mut ranks);
            let mut any_full = false;
            while mask != 0 {
                // Lane j stores its element in its own queue.
                let j = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                queues[j * t + filled[j]] = ranks[j];
                filled[j] += 1;
                any_full |= filled[j] == t;
            }
            if any_full {
                top.absorb(queues);
                queues.fill(PAD);
                filled = [0; WARP];
                work.merges += 1;
            }
        }
        if filled.iter().any(|&f| f > 0) {
            top.absorb(queues);
            work.merges += 1;
        }
        for (o, &r) in out.iter_mut().zip(top.ranks()) {
            *o = rank_index(r);
        }
        out.sort_unstable();
        work.sweep(row.len());
        work.write(k);
        work
    }
}

// WarpSelect's thread and warp queues (paper 002, §2.2) hold key-index pairs packed in 64
// bits: keys of at most 32 bits (`f64` and `i64` rows are refused with
// `TopKError::UnsupportedElement`).
topk_ref::row_select!(WarpSelect, "warpselect", 32, |warp, row, k, mode, scratch, out| {
    RowStats::with_work(warp.work_row(Job { row, k, mode, scratch, out }))
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GridSelect;
    use crate::job::run_job;
    use topk_ref::oracle::canonical_indices;
    use topk_ref::order::Mode;

    fn merges(row: &[f32], k: usize) -> (u64, u64) {
        let (out, w) = run_job(row, k, Mode::Largest, |job| WarpSelect.work_row(job));
        assert_eq!(out, canonical_indices(row, k, Mode::Largest));
        let (out, g) = run_job(row, k, Mode::Largest, |job| GridSelect::default().trace_row(job));
        assert_eq!(out, canonical_indices(row, k, Mode::Largest));
        (w.merges, g.flushes)
    }

    #[test]
    fn clustered_qualifiers_make_warpselect_merge_more_often() {
        // Once the running top-k holds k elements, only lane 0 qualifies (a rising value every
        // 32 elements): WarpSelect merges each time that one lane's 2 slots fill; the shared
        // queue of 32 fills 16 times less often. (The first chunks fill both: everything
        // qualifies while fewer than k elements are known.)
        let row: Vec<f32> =
            (0..32 * 64).map(|i| if i % 32 == 0 { i as f32 } else { -1.0 }).collect();
        assert_eq!(thread_queue_len(8), 2);
        assert_eq!(merges(&row, 8), (32, 3));
    }

    #[test]
    fn spread_qualifiers_merge_about_as_often() {
        // An ascending row: every lane qualifies every chunk; WarpSelect fills all its queues
        // (T = 2) every 2 chunks, GridSelect's queue every chunk.
        let row: Vec<f32> = (0..32 * 64).map(|i| i as f32).collect();
        assert_eq!(merges(&row, 8), (32, 64));
    }

    #[test]
    fn work_is_one_pass() {
        let row: Vec<f32> = (0..500).map(|i| ((i * 31) % 97) as f32).collect();
        let (out, w) = run_job(&row, 300, Mode::Smallest, |job| WarpSelect.work_row(job));
        assert_eq!(out, canonical_indices(&row, 300, Mode::Smallest));
        assert_eq!((w.elements_read, w.elements_written, w.passes), (500, 300, 1));
        assert_eq!(thread_queue_len(300), 8);
    }
}
