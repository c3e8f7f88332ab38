//! What `auto` runs on the CPU: each row on the fastest of `bisect`, `heap` and `bucket` for
//! its shape and key width.
//!
//! Every CPU algorithm gives the canonical top-k (docs/contract.md §1), so the choice changes
//! the time alone. `bisect` wins where a row sits in cache and k is not tiny against it: its
//! ~10 counting passes are vector compares over keys in L1/L2 (docs/performance.md, "CPU
//! algorithms"). `heap` wins on rows long against k: one pass in which most chunks of 32
//! keys lose to the heap's root at once, about `k · ln(M / k)` elements entering it, where
//! `bisect` reads the row ten times over. `bucket` at k = 1 is a min/max pass and the selection
//! pass. Measured on the 2-core VM (results/cpu/2026-12-05-cpu-auto/record.md and
//! results/cpu/2026-12-05-cpu-auto-short/record.md):
//!
//! * rows of 32- and 64-bit keys (f32, f64, the 32- and 64-bit integers) at k <= M/256 from
//!   M = 1024 ([`HEAP_MIN_WIDTH_WIDE`]): `heap` took 0.20–0.84 of `bisect`'s time, and 0.08–0.18
//!   on rows of 2^20 and more;
//! * rows of 8- and 16-bit keys (f16, bf16, the 8- and 16-bit integers) gain from the heap only
//!   past the caches: from M = 16384 ([`HEAP_MIN_WIDTH`]), 0.27–0.47 up to 2^18, where below
//!   it ran at 0.5–2.3 times `bisect`'s speed;
//! * at k = 1, `bucket` took 0.28–0.66 of `bisect`'s time on rows of 8- and 16-bit keys up to
//!   2^18 (the heap 0.52–1.35; [`BUCKET_MAX_WIDTH`]) and 0.45–0.62 on the wider keys' rows
//!   shorter than [`HEAP_MIN_WIDTH_WIDE`], from where the heap is as fast or faster.
//!
//! So a row takes `bucket` at k = 1 below its width bound, `heap` where
//! `k · HEAP_RATIO <= M` from its key width's minimum, `bisect` otherwise ([`row_algo`]).
//!
//! An ascending row enters every element into the heap: O(M log k), many times `bisect`'s
//! time on a long row. So the heap is given up, and the row goes to `bisect`, once more elements
//! entered it than [`heap_allowance`] — twice what enters a row in random order by then, and
//! 64 — checked after 2k, 4k, 8k, … elements: an ascending row at k = 64 is caught after 16k
//! elements. On rows of 2^20 and more that costs nothing measurable against `bisect`'s passes;
//! on ascending rows of 16384 at k = 64 it took `auto` to twice `bisect`'s time.
//!
//! Calls that ask for what only `bisect` gives — iteration counts, early stopping, a
//! precision, a recall target — run `bisect` on every row (`crate::registry::build`); a hint
//! reaches the rows `bisect` runs.

use topk_ref::{Bisect, Bucket, Element, KeyBits, Mode, RowSelect, RowStats, Scratch, heap};

/// A row takes `heap` when it is at least this many times longer than its k.
pub const HEAP_RATIO: usize = 256;

/// ... and, with 8- or 16-bit keys, at least this long: shorter rows sit in cache, where
/// `bisect`'s passes over narrow keys are cheap (there `heap` ran at 0.5–2.3 times `bisect`'s
/// speed).
pub const HEAP_MIN_WIDTH: usize = 16384;

/// ... or, with 32- or 64-bit keys, at least this long: shorter rows would take it at k = 1 to
/// 3 alone, where at k = 1 `bucket` is the faster and at M = 512, k = 2 the heap gained little
/// (f32: 0.90 of `bisect`'s time).
pub const HEAP_MIN_WIDTH_WIDE: usize = 1024;

/// At k = 1 a row of 8- or 16-bit keys shorter than this takes `bucket` (at 2^20 the heap was
/// the faster, 0.49–0.50 of `bisect`'s time against 0.85).
pub const BUCKET_MAX_WIDTH: usize = 1 << 19;

/// The algorithm a row runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowAlgo {
    /// `bucket` (k = 1 on rows below their width bound).
    Bucket,
    /// `heap`, given up for `bisect` where the row's order lets too many elements in.
    Heap,
    /// `bisect`.
    Bisect,
}

/// What a row of `m` values of keys `key_bits` wide runs on at `k` (see the module docs).
pub fn row_algo(key_bits: u32, m: usize, k: usize) -> RowAlgo {
    let wide = key_bits >= 32;
    let bucket_below = if wide { HEAP_MIN_WIDTH_WIDE } else { BUCKET_MAX_WIDTH };
    let heap_from = if wide { HEAP_MIN_WIDTH_WIDE } else { HEAP_MIN_WIDTH };
    if k == 1 && m < bucket_below {
        RowAlgo::Bucket
    } else if k > 0 && m >= heap_from && k.saturating_mul(HEAP_RATIO) <= m {
        RowAlgo::Heap
    } else {
        RowAlgo::Bisect
    }
}

/// How many elements past the first `k` may have entered the heap once `read` elements of a
/// row were read: twice the `k · (1 + ln(read / k))` that enter a row in random order, and 64.
pub fn heap_allowance(k: usize, read: usize) -> usize {
    let expected = k as f64 * (1.0 + (read as f64 / k.max(1) as f64).ln());
    (2.0 * expected) as usize + 64
}

/// `auto` on the CPU for exact calls without iteration counts: `bucket`, `heap` or `bisect`
/// per row ([`row_algo`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuAuto {
    bisect: Bisect,
}

impl CpuAuto {
    /// Rows that take neither the heap nor the bucket run `bisect` (exact mode).
    pub fn new(bisect: Bisect) -> Self {
        Self { bisect }
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

    /// The heap's and the bucket's rows ignore the hint; bisect's start from it.
    fn select_hinted<E: Element>(
        &self,
        row: &[E],
        k: usize,
        mode: Mode,
        hint: Option<f32>,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats {
        let bisect = |scratch: &mut Scratch, out: &mut [u32]| {
            self.bisect.select_hinted(row, k, mode, hint, scratch, out)
        };
        match row_algo(<E::Key as KeyBits>::BITS, row.len(), k) {
            RowAlgo::Bucket => Bucket.select(row, k, mode, scratch, out),
            RowAlgo::Bisect => bisect(scratch, out),
            RowAlgo::Heap => {
                let allowance = |read| heap_allowance(k, read);
                match heap::select_within(row, k, mode, &allowance, scratch, out) {
                    Ok(stats) => stats,
                    Err(spent) => after(spent, bisect(scratch, out)),
                }
            }
        }
    }
}
