//! `quickselect` — introselect on the unique ranks of the row.
//!
//! # Idea
//! Build every element's rank ([`crate::order::rank`]); ranks are unique, so the canonical
//! top-k is simply "the k largest ranks". Quickselect finds them by partitioning: pick a pivot,
//! move larger ranks to its left and smaller ones to its right, and continue only in the side
//! that holds position `k - 1`. When that position is the pivot's, the k largest ranks fill
//! the front of the buffer. The pivot is the median of three samples (at 1/4, 1/2 and 3/4 of
//! the range), which splits sorted, reversed and organ-pipe rows in half.
//!
//! Any fixed median-of-3 can still be fooled by a crafted row: each round then peels off
//! only a few elements. So the search keeps a *work budget*: once its partitions have
//! passed [`WORK_BUDGET`]` · M` ranks in total, it switches to the **median of medians** pivot
//! (medians of groups of five, then, recursively, their median), which always keeps at most
//! about 7/10 of the range. That is *introselect* (Musser, 1997): the speed of quickselect in
//! practice, a linear worst case.
//!
//! Why a budget on work rather than a limit on rounds that fail to shrink the range: a limit
//! of `2·log2(M)` bad rounds still lets each of them cost O(M), i.e. O(M log M). Measured at
//! M = 200 000 on an organ-pipe row with a first/middle/last sample, that rule moved 42·M
//! ranks (5 ms) where median of medians alone moves 6.5·M (1.4 ms); with the budget the
//! worst case is about 4·M before the switch plus the linear fallback on what remains.
//!
//! The k largest ranks now fill the front of the buffer. When k is small next to M their
//! indices are simply sorted; otherwise the k-th largest rank serves as a threshold, and one
//! branch-free pass over the row in index order writes every index whose rank reaches it,
//! already in ascending order.
//!
//! # Cost
//! Time O(M): M ranks built, then about 1–3·M rank moves for median-of-3 on the rows we
//! measured (sorted, reversed, all-equal, organ-pipe, random), and in the worst case
//! [`WORK_BUDGET`]`·M` plus the linear median-of-medians selection (about 6.5·M moves on its
//! own); the output costs O(min(k log k, M)). Extra memory: M ranks (`u64`; `u128` for 64-bit
//! keys) in the scratch;
//! the median-of-medians recursion is O(log M) deep, on the stack.
//!
//! # On a GPU warp
//! One partition round maps well: each lane compares its elements with the pivot, and a ballot
//! plus a prefix popcount gives every element its place on either side — the same machinery
//! as RTop-K's selecting stage. The search as a whole does not: each round rewrites the row
//! (shared memory traffic instead of register compares), the number of rounds depends on the
//! data, and median of medians is recursive and serial. GPU selections keep the "narrow the
//! range in passes" idea but take the split from the data's bits or values instead of a pivot
//! element (radix select, or RTop-K's counting bisection), so no element has to move until
//! the final selection.

use crate::algorithm::{RowStats, WorkCounters, grow};
use crate::order::{Element, KeyBits, Mode, RankBits, RankOf};

/// Ranges at most this long are finished by insertion sort: below it, partitioning overhead
/// costs more than the quadratic sort of a few elements.
const SMALL: usize = 16;

/// Ranks a median-of-3 search may pass through partitions, per element of the row, before it
/// falls back to median of medians. Typical rows need 1–3; the slack keeps unlucky but
/// harmless pivot sequences on the fast path.
pub const WORK_BUDGET: usize = 4;

/// Introselect (median-of-3 quickselect with a median-of-medians fallback) on unique ranks.
#[derive(Clone, Copy, Debug, Default)]
pub struct Quickselect;

crate::row_select!(Quickselect, "quickselect", 64, |_, row, k, mode, scratch, out| {
    let ranks = grow(RankOf::<E>::buffers(scratch).0, row.len());
    // One monomorphic copy per mode, so the key has no mode branch inside the loops.
    let work = match mode {
        Mode::Largest => select_top_k(row, k, ranks, out, E::key_largest),
        Mode::Smallest => select_top_k(row, k, ranks, out, E::key_smallest),
    };
    RowStats::with_work(work)
});

/// Writes the indices of the `k` largest ranks of `row` into `out`, ascending.
fn select_top_k<E: Element>(
    row: &[E],
    k: usize,
    ranks: &mut [RankOf<E>],
    out: &mut [u32],
    key_of: impl Fn(E) -> E::Key + Copy,
) -> WorkCounters {
    let mut work = WorkCounters::default();
    work.write(k);
    if k == row.len() {
        // Everything is selected; the output is the identity.
        out.iter_mut().zip(0u32..).for_each(|(o, i)| *o = i);
        return work;
    }
    for ((r, &v), i) in ranks.iter_mut().zip(row).zip(0u32..) {
        *r = key_of(v).rank(i);
    }
    work.sweep(row.len());
    // Every partition round reads and rewrites its range; the first covers the whole row.
    let moved = select_largest(ranks, k - 1, WORK_BUDGET * ranks.len());
    work.passes += 1;
    work.read(moved);
    work.write(moved);
    if sorting_is_cheaper(k, row.len()) {
        for (o, &r) in out.iter_mut().zip(&ranks[..k]) {
            *o = r.index();
        }
        work.read(k);
        out.sort_unstable();
    } else {
        write_at_least(row, ranks[k - 1], out, key_of);
        // The pass stops at the element that completes k.
        work.sweep(out[k - 1] as usize + 1);
    }
    work
}

/// `true` when sorting the k selected indices (about `k·log2(k)` compares) costs less than a
/// pass over the whole row of `m` elements. The factor 2 is measured: a pass recomputes every
/// key and rank, and the two break even near `k·log2(k) ≈ 2m` (M = 256 … 8192).
fn sorting_is_cheaper(k: usize, m: usize) -> bool {
    k * (usize::BITS - k.leading_zeros()) as usize <= 2 * m
}

/// Writes, in index order, every index of `row` whose rank is `>= kth` (exactly `out.len()`
/// of them when `kth` is the `out.len()`-th largest rank).
fn write_at_least<E: Element>(
    row: &[E],
    kth: RankOf<E>,
    out: &mut [u32],
    key_of: impl Fn(E) -> E::Key,
) {
    let mut written = 0;
    for (&v, i) in row.iter().zip(0u32..) {
        // Branch-free: always write, advance only past a selected index. `written < out.len()`
        // at every write, because the loop stops as soon as the last index is in.
        out[written] = i;
        written += usize::from(key_of(v).rank(i) >= kth);
        if written == out.len() {
            break;
        }
    }
    debug_assert_eq!(written, out.len());
}

/// Rearranges the unique values `s` so that `s[nth]` is the `(nth + 1)`-th largest, with
/// larger values before it and smaller ones after it. Median-of-3 pivots until `budget` units
/// of work are spent, median of medians after (0 = median of medians from the start).
///
/// Returns the work done — values passed through a partition, a pivot choice or the final
/// insertion sort — so that tests can check it stays linear.
fn select_largest<R: RankBits>(s: &mut [R], nth: usize, budget: usize) -> usize {
    debug_assert!(nth < s.len());
    let (mut lo, mut hi) = (0, s.len());
    let mut work = 0;
    while hi - lo > SMALL {
        let part = &mut s[lo..hi];
        let len = part.len();
        let pivot = if work < budget {
            median_of_3(part)
        } else {
            let (pivot, mom_work) = median_of_medians(part);
            work += mom_work;
            pivot
        };
        let p = lo + partition_desc(part, pivot);
        work += len;
        if p == nth {
            return work;
        }
        if nth < p {
            hi = p;
        } else {
            lo = p + 1;
        }
    }
    insertion_sort_desc(&mut s[lo..hi]);
    work + (hi - lo)
}

/// Index of the middle value among the values at 1/4, 1/2 and 3/4 of `s` (values unique).
///
/// The middle sample splits sorted and reversed rows exactly in half; the quarter samples
/// (rather than the two ends) also split organ-pipe rows well, which fool first/middle/last.
fn median_of_3<R: RankBits>(s: &[R]) -> usize {
    let (a, b, c) = (s.len() / 4, s.len() / 2, s.len() - 1 - s.len() / 4);
    let (x, y, z) = (s[a], s[b], s[c]);
    if (x < y) == (y < z) {
        b
    } else if (y < x) == (x < z) {
        a
    } else {
        c
    }
}

/// A pivot that leaves at least about 3/10 of `s` on each side: the median of the medians of
/// groups of five. Gathers the group medians at the front of `s` and selects their median with
/// median-of-medians pivots only, so the whole recursion is linear. Returns the pivot's index
/// and the work done.
fn median_of_medians<R: RankBits>(s: &mut [R]) -> (usize, usize) {
    let groups = s.len() / 5;
    for g in 0..groups {
        insertion_sort_desc(&mut s[5 * g..5 * g + 5]);
        // Slot g lies in an already-processed group (or is this group's own), so nothing
        // still needed is overwritten.
        s.swap(g, 5 * g + 2);
    }
    let mid = groups / 2;
    let work = select_largest(&mut s[..groups], mid, 0);
    (mid, work + s.len())
}

/// Moves the values larger than `s[pivot]` to its left and the smaller ones to its right;
/// returns the pivot's final index.
///
/// Lomuto's scheme without a branch: every value is swapped with the first slot of the
/// "smaller" side and that side's start advances by the comparison result, so the loop costs
/// the same whatever the data (no mispredicted branches on random ranks).
fn partition_desc<R: RankBits>(s: &mut [R], pivot: usize) -> usize {
    let last = s.len() - 1;
    s.swap(pivot, last);
    let p = s[last];
    let mut store = 0;
    for i in 0..last {
        let larger = s[i] > p;
        s.swap(i, store);
        store += usize::from(larger);
    }
    s.swap(store, last);
    store
}

/// Sorts a short slice in descending order.
fn insertion_sort_desc<R: RankBits>(s: &mut [R]) {
    for i in 1..s.len() {
        let x = s[i];
        let mut j = i;
        while j > 0 && s[j - 1] < x {
            s[j] = s[j - 1];
            j -= 1;
        }
        s[j] = x;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::{Options, topk_row};
    use crate::order::rank;
    use crate::test_rows::{
        assert_hand_checked, assert_one_scratch, assert_oracle, assert_shaped_rows,
        assert_small_widths, assert_special_values, noise, noise_shapes, shaped_rows,
    };

    fn check(row: &[f32], k: usize, mode: Mode) {
        assert_oracle(&Quickselect, row, k, mode, "");
    }

    /// Ranks of `row` in largest mode, as the selection sees them.
    fn ranks_of(row: &[f32]) -> Vec<u64> {
        row.iter().zip(0u32..).map(|(&v, i)| rank(crate::order::key(v, Mode::Largest), i)).collect()
    }

    #[test]
    fn work_counts_partitions_as_reads_and_writes() {
        let row = noise(1000, 5);
        let w = topk_row(&Quickselect, &row, 10, Options::default()).unwrap().stats.work;
        // Ranks (a sweep), the partition rounds (each rank moved is read and written), then
        // the k selected ranks are read and their indices written.
        assert_eq!(w.passes, 2);
        assert_eq!(w.elements_read - w.elements_written, 1000);
        assert!(w.elements_written >= 1000 + 10, "the first round moves every rank");
        // k = M selects everything without reading.
        let w = topk_row(&Quickselect, &row, 1000, Options::default()).unwrap().stats.work;
        assert_eq!((w.elements_read, w.elements_written, w.passes), (0, 1000, 0));
    }

    #[test]
    fn building_blocks() {
        assert_eq!(median_of_3(&[1u64, 9, 5]), 2);
        assert_eq!(median_of_3(&[5u64, 1, 9]), 0);
        assert_eq!(median_of_3(&[9u64, 5, 1]), 1);
        let mut s = [3u64, 8, 1, 9, 5, 7];
        let p = partition_desc(&mut s, 4); // pivot 5
        assert_eq!(p, 3);
        assert!(s[..3].iter().all(|&x| x > 5) && s[4..].iter().all(|&x| x < 5));
        let mut t = [2u64, 7, 1, 8];
        insertion_sort_desc(&mut t);
        assert_eq!(t, [8, 7, 2, 1]);
    }

    #[test]
    fn shaped_rows_match_the_oracle() {
        let m = 3001; // not a multiple of 32
        assert_shaped_rows(&Quickselect, m, &[1, 2, 17, 32, 33, 500, m / 2, m - 1, m]);
    }

    #[test]
    fn median_of_medians_alone_is_correct() {
        for (name, row) in shaped_rows(1001) {
            for nth in [0, 1, 31, 500, 999, 1000] {
                let mut s = ranks_of(&row);
                select_largest(&mut s, nth, 0);
                let mut want = ranks_of(&row);
                want.sort_unstable_by(|a, b| b.cmp(a));
                assert_eq!(s[nth], want[nth], "{name} nth={nth}");
                assert!(s[..nth].iter().all(|&x| x > s[nth]), "{name} nth={nth}");
                assert!(s[nth + 1..].iter().all(|&x| x < s[nth]), "{name} nth={nth}");
            }
        }
    }

    #[test]
    fn work_stays_linear_on_adversarial_shapes() {
        // A quadratic quickselect would do ~M^2 / 4 = 10^10 units here.
        let m = 200_000;
        for (name, row) in shaped_rows(m) {
            for nth in [0, 31, m / 3, m / 2, m - 1] {
                for budget in [WORK_BUDGET * m, 0] {
                    let mut s = ranks_of(&row);
                    let work = select_largest(&mut s, nth, budget);
                    assert!(work <= 12 * m, "{name} nth={nth} budget={budget}: work {work}");
                }
            }
            check(&row, 32, Mode::Largest);
            check(&row, m / 2, Mode::Smallest);
        }
    }

    #[test]
    fn switching_to_the_fallback_midway_stays_correct() {
        for (name, row) in shaped_rows(5003) {
            let m = row.len();
            for budget in [1, m / 2, m, 2 * m] {
                for nth in [0, 40, m / 2, m - 2] {
                    let mut s = ranks_of(&row);
                    let work = select_largest(&mut s, nth, budget);
                    let mut want = ranks_of(&row);
                    want.sort_unstable_by(|a, b| b.cmp(a));
                    assert_eq!(s[nth], want[nth], "{name} budget={budget} nth={nth}");
                    assert!(s[..nth].iter().all(|&x| x > s[nth]));
                    assert!(work <= budget + 12 * m, "{name} budget={budget}: work {work}");
                }
            }
        }
    }

    #[test]
    fn hand_checked_rows() {
        assert_hand_checked(&Quickselect);
    }

    #[test]
    fn special_values_in_both_modes() {
        let row = assert_special_values(&Quickselect);
        // Many NaNs and zeros on both sides of the partitions.
        let wide: Vec<f32> = (0..333).map(|i| row[i % row.len()]).collect();
        for k in [1, 32, 100, 332, 333] {
            check(&wide, k, Mode::Largest);
            check(&wide, k, Mode::Smallest);
        }
    }

    #[test]
    fn small_and_odd_widths() {
        assert_small_widths(&Quickselect, &[1, 2, 3, 5, 16, 17, 31, 33, 63, 65, 100, 257]);
    }

    #[test]
    fn scratch_is_reused_across_rows_of_different_shapes() {
        assert_one_scratch(&Quickselect, &noise_shapes());
    }
}
