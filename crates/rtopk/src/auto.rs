//! What `auto` runs on the CPU: each row on the faster of `bisect` and `heap` for its shape.
//!
//! Every CPU algorithm gives the canonical top-k (docs/contract.md §1), so the choice changes
//! the time alone. `bisect` wins where a row sits in cache and k is not tiny against it: its
//! ~10 counting passes are vector compares over keys in L1/L2 (docs/performance.md, "CPU
//! algorithms"). `heap` wins on rows long against k: one pass in which most chunks of 32
//! keys lose to the heap's root at once, about `k · ln(M / k)` elements entering it, where
//! `bisect` reads a row beyond the caches ten times over. Measured on the 2-core VM, 2^22
//! standard-normal f32 values a call: on rows of 16384 and more at k <= M/256, `heap` takes
//! 0.27–0.47 of `bisect`'s time up to 2^18 values a row and 0.08–0.18 from 2^20; at k = M/128
//! the two are within 0.8–1.2 of each other (results/cpu/2026-12-05-cpu-auto/record.md). So a
//! row of M takes `heap` when `k · HEAP_RATIO <= M` and `M >= HEAP_MIN_WIDTH`, `bisect`
//! otherwise.
//!
//! An ascending row enters every element into the heap: O(M log k), many times `bisect`'s
//! time on a long row. So the heap is given up, and the row goes to `bisect`, once more elements
//! entered it than [`heap_allowance`] — twice what enters a row in random order by then, and
//! 64 — checked after 2k, 4k, 8k, … elements: an ascending row is caught after about 16k
//! elements. On rows of 2^20 and more that costs nothing measurable against `bisect`'s passes;
//! on ascending rows of 16384 at k = 64 it took `auto` to twice `bisect`'s time.
//!
//! Calls that ask for what only `bisect` gives — iteration counts, early stopping, a
//! precision, a recall target — run `bisect` on every row (`crate::registry::build`); a hint
//! reaches the rows `bisect` runs.

use topk_ref::{Bisect, Element, Mode, RowSelect, RowStats, Scratch, heap};

/// A row takes `heap` when it is at least this many times longer than its k.
pub const HEAP_RATIO: usize = 256;

/// ... and at least this long: shorter rows sit in cache, where `bisect`'s passes are cheap
/// (there `heap` ran at 0.5–2.3 times `bisect`'s speed, 16-bit rows the slowest).
pub const HEAP_MIN_WIDTH: usize = 16384;

/// Whether a row of `m` values at `k` runs on `heap` (see the module docs).
pub fn takes_heap(m: usize, k: usize) -> bool {
    k > 0 && m >= HEAP_MIN_WIDTH && k.saturating_mul(HEAP_RATIO) <= m
}

/// How many elements past the first `k` may have entered the heap once `read` elements of a
/// row were read: twice the `k · (1 + ln(read / k))` that enter a row in random order, and 64.
pub fn heap_allowance(k: usize, read: usize) -> usize {
    let expected = k as f64 * (1.0 + (read as f64 / k.max(1) as f64).ln());
    (2.0 * expected) as usize + 64
}

/// `auto` on the CPU for exact calls without iteration counts: `heap` or `bisect` per row.
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuAuto {
    bisect: Bisect,
}

impl CpuAuto {
    /// Rows that do not take the heap run `bisect` (exact mode).
    pub fn new(bisect: Bisect) -> Self {
        Self { bisect }
    }

    /// The heap's selection where the row takes it and its order lets it finish within the
    /// budget; `Err` with the work it spent otherwise (none where the row does not take it).
    fn by_heap<E: Element>(
        row: &[E],
        k: usize,
        mode: Mode,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> Result<RowStats, RowStats> {
        if !takes_heap(row.len(), k) {
            return Err(RowStats::default());
        }
        heap::select_within(row, k, mode, &|read| heap_allowance(k, read), scratch, out)
    }
}

/// `bisect`'s stats with the pass the heap spent before it gave the row up added.
fn after(spent: RowStats, mut stats: RowStats) -> RowStats {
    stats.work.add_traffic(&spent.work);
    stats.work.passes += spent.work.passes;
    stats
}

impl RowSelect for CpuAuto {
    fn name(&self) -> &'static str {
        "auto"
    }

    fn select<E: Element>(
        &self,
        row: &[E],
        k: usize,
        mode: Mode,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats {
        // bisect without a hint is its plain search
        self.select_hinted(row, k, mode, None, scratch, out)
    }

    /// The heap's rows ignore the hint; bisect's start from it.
    fn select_hinted<E: Element>(
        &self,
        row: &[E],
        k: usize,
        mode: Mode,
        hint: Option<f32>,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats {
        match Self::by_heap(row, k, mode, scratch, out) {
            Ok(stats) => stats,
            Err(spent) => after(spent, self.bisect.select_hinted(row, k, mode, hint, scratch, out)),
        }
    }
}
