//! What GridSelect and WarpSelect share: the running top-k kept sorted across a warp, merged
//! with bitonic networks, and the per-chunk "ballot" of elements that beat its threshold.
//!
//! Both keep the best `L = max(k.next_power_of_two(), 32)` ranks seen so far, sorted best first
//! (Faiss's *warp queue*; a GridSelect block's result). A new element can only matter if its
//! rank beats the k-th of them, the *threshold*. Elements that do are collected in a queue —
//! per lane in WarpSelect, shared in GridSelect — and a full queue is sorted with a bitonic
//! network and merged into the running list: compare element `i` of the list with element
//! `len - 1 - i` of the queue, keep the larger (a bitonic sequence holding the best `L` of
//! both), and rebuild it into sorted order. The networks are topk-ref's
//! ([`topk_ref::bitonic`]); ranks ([`topk_ref::order::rank`]) make every comparison strict, so the
//! result is the canonical top-k.

use topk_ref::bitonic::{PAD, keep_larger_reversed, rebuild, sort_run};
use topk_ref::order::{Element, rank};

/// Lanes of a warp: elements handled per step, and the GridSelect queue size (§4).
pub(crate) const WARP: usize = 32;

/// Length of the running list for `k`: a power of two, at least a warp.
pub(crate) fn list_len(k: usize) -> usize {
    k.next_power_of_two().max(WARP)
}

/// The best `L` ranks seen so far, sorted best first, of which the first `k` are the answer.
pub(crate) struct RunningTop<'a> {
    best: &'a mut [u64],
    k: usize,
}

impl<'a> RunningTop<'a> {
    /// An empty list over `buf` (length [`list_len`]`(k)`): all padding, so every real rank
    /// beats the threshold until k elements have arrived.
    pub(crate) fn new(buf: &'a mut [u64], k: usize) -> Self {
        debug_assert!(buf.len().is_power_of_two() && buf.len() >= k);
        buf.fill(PAD);
        Self { best: buf, k }
    }

    /// The rank a new element must beat: the k-th best so far.
    #[inline(always)]
    pub(crate) fn threshold(&self) -> u64 {
        self.best[self.k - 1]
    }

    /// Merges `queue` (any power-of-two length, unsorted, padded with [`PAD`]) into the list:
    /// a bitonic sort of the queue, then a bitonic merge.
    pub(crate) fn absorb(&mut self, queue: &mut [u64]) {
        sort_run(queue);
        merge_sorted(self.best, queue);
    }

    /// The list, best first.
    pub(crate) fn ranks(&self) -> &[u64] {
        self.best
    }
}

/// Leaves in `best` the best `best.len()` of `best` and `run`, sorted best first. Both are
/// sorted best first and have power-of-two lengths; `run` is used as work space.
pub(crate) fn merge_sorted(best: &mut [u64], run: &mut [u64]) {
    let (l, r) = (best.len(), run.len());
    if r <= l {
        // `run` padded to L: only the last r slots of `best` meet a real partner.
        keep_larger_reversed(&mut best[l - r..], run);
        rebuild(best);
    } else {
        keep_larger_reversed(&mut run[r - l..], best);
        rebuild(run);
        best.copy_from_slice(&run[..l]);
    }
}

/// The ranks of one chunk (at most 32 elements starting at index `base`) and the ballot of
/// those above `threshold`: bit `j` set when element `base + j` qualifies.
#[inline(always)]
pub(crate) fn ballot<E: Element>(
    chunk: &[E],
    base: u32,
    key_of: impl Fn(E) -> u32,
    threshold: u64,
    ranks: &mut [u64; WARP],
) -> u32 {
    let mut mask = 0u32;
    for ((j, &v), r) in chunk.iter().enumerate().zip(ranks.iter_mut()) {
        *r = rank(key_of(v), base + j as u32);
        mask |= u32::from(*r > threshold) << j;
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_keeps_the_best_in_order() {
        let mut buf = vec![0; 4];
        let mut top = RunningTop::new(&mut buf, 3);
        assert_eq!(top.threshold(), PAD);
        top.absorb(&mut [5, 9, 1, PAD]);
        assert_eq!(top.ranks(), [9, 5, 1, PAD]);
        assert_eq!(top.threshold(), 1);
        // A longer run than the list.
        top.absorb(&mut [2, 8, 7, 3, 10, PAD, PAD, PAD]);
        assert_eq!(top.ranks(), [10, 9, 8, 7]);
        assert_eq!(top.threshold(), 8);
        // A shorter one.
        let mut best = vec![10, 9, 8, 7];
        merge_sorted(&mut best, &mut [11, 6]);
        assert_eq!(best, [11, 10, 9, 8]);
    }

    #[test]
    fn ballot_marks_ranks_above_the_threshold() {
        let mut ranks = [0; WARP];
        let chunk = [1.0f32, 5.0, 3.0];
        let thr = rank(topk_ref::order::key_largest(3.0), 0);
        let mask = ballot(&chunk, 10, topk_ref::order::key_largest, thr, &mut ranks);
        // 5.0 beats 3.0; the 3.0 at index 12 loses the tie to index 0.
        assert_eq!(mask, 0b010);
        assert_eq!(topk_ref::order::rank_index(ranks[2]), 12);
    }
}
