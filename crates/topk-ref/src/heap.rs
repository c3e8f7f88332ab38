//! `heap` — a bounded min-heap of the k best elements seen so far.
//!
//! # Idea
//! Keep the k best ranks ([`crate::order::rank`]) met so far in a **min**-heap, so the worst of
//! them sits at the root. The first k elements fill the heap; every later element is compared
//! with the root: if it ranks lower it is rejected, otherwise it replaces the root and sinks to
//! its place. After one pass the heap holds exactly the canonical top-k; their indices come out
//! of the ranks ([`crate::order::rank_index`]) and are sorted ascending.
//!
//! Three details make it fast; none changes the result.
//! * **Keys, not ranks, for the test.** Elements arrive in index order, so a newcomer's index is
//!   larger than every index in the heap and wins only with a strictly larger key: the test is
//!   one `u32` compare with the root's key, and a 64-bit rank is built only for survivors.
//! * **Chunks of 32.** The keys of a chunk are compared with the root's key all at once
//!   (a vector compare giving a bit mask); on long rows most chunks have no survivor and cost a
//!   few instructions. Survivors enter one by one, each rechecked against the risen root.
//! * **Four children per node, walked without branches.** An accept is a walk from the root
//!   towards a leaf, and each step waits for the loads of the step before: the walk is bound by
//!   latency, not by work. A 4-ary heap is half as deep as a binary one (k = 32: 3 steps, not
//!   5), its four children sit next to each other in memory, and choosing among them with
//!   conditional moves avoids the misprediction that a branchy sift-down pays at nearly every
//!   level on random data. The tree is padded to a complete one with slots of the largest
//!   rank, so every walk has the same length and no step checks whether a child exists.
//!
//! # Cost
//! Time O(M log k) in the worst case (an ascending row replaces the root every time);
//! [`select_within`] gives such a row up after a budget of entries, for a caller that has a
//! faster way for it. On a row
//! in random order element `i > k` enters with probability `k / i`, so only about
//! `k · ln(M / k)` elements pay an O(log k) walk (66 of the 224 later elements at M = 256,
//! k = 32): O(M + k log k · log(M / k)) expected, plus O(k log k) for the final index sort.
//! Extra memory: the padded tree, fewer than 4k ranks (`u64`; `u128` for 64-bit keys), in the
//! scratch.
//!
//! Measured (one core, x86-64-v3 build, uniform random rows, M = 256, k = 32): about 1.25 µs a
//! row, of which about 1 µs is the ~66 walks; a plain binary heap with a branchy sift-down and a
//! branch per element took 2.3–2.9 µs. An ascending row, where every element enters, is the
//! slow case (about 2.9 µs).
//!
//! # On a GPU warp
//! Poorly, as written. Every accept reads and writes one small array along a data-dependent
//! path, so one lane would do the work while 31 wait, and an array indexed at run time does not
//! live in registers. GPU libraries keep the *idea* — a running threshold that rejects most
//! elements with one compare, which is what the chunk filter is — but replace the single heap
//! by a short queue per lane, merged now and then by warp-wide sorting networks (e.g. Faiss's
//! WarpSelect). RTop-K drops per-element bookkeeping altogether in favour of a counting search
//! (see `bisect`).

use crate::algorithm::{RowStats, Scratch, WorkCounters, grow};
use crate::order::{Element, KeyBits, Mode, RankBits, RankOf};

/// Children per heap node: the children of slot `p` are `ARITY * p + 1 ..= ARITY * p + ARITY`.
const ARITY: usize = 4;

/// Elements compared with the root at once (one bit each in a `u32` mask).
const CHUNK: usize = 32;

// `smallest_child` is written out for four children.
const _: () = assert!(ARITY == 4);

/// Bounded min-heap selection: one pass, O(M log k), most elements rejected in bulk.
#[derive(Clone, Copy, Debug, Default)]
pub struct Heap;

crate::row_select!(Heap, "heap", 64, |_, row, k, mode, scratch, out| {
    match select_within(row, k, mode, &|_| usize::MAX, scratch, out) {
        Ok(stats) | Err(stats) => stats, // every row is allowed every entry
    }
});

/// The heap's selection of `k` from `row` (`1 <= k <= row.len()`), given up once more
/// elements past the first `k` have entered the heap than `allowed(read)`, checked when
/// `read` = 2k, 4k, 8k, … elements have been read: `Err` then, with the work done so far and
/// `out` unspecified. A caller that has a faster way for rows whose order makes the heap slow
/// (an ascending row enters every element) bounds what it loses on them: about
/// `k · (1 + ln(read / k))` elements of a row in random order enter by then (module docs,
/// "Cost"), an ascending row's `read - k`.
pub fn select_within<E: Element>(
    row: &[E],
    k: usize,
    mode: Mode,
    allowed: &dyn Fn(usize) -> usize,
    scratch: &mut Scratch,
    out: &mut [u32],
) -> Result<RowStats, RowStats> {
    let (slots, steps) = full_tree(k);
    let heap = grow(RankOf::<E>::buffers(scratch).0, slots);
    // One monomorphic copy per mode, so the key has no mode branch inside the hot loop.
    let (read, whole) = match mode {
        Mode::Largest => keep_best(row, k, heap, steps, allowed, E::key_largest),
        Mode::Smallest => keep_best(row, k, heap, steps, allowed, E::key_smallest),
    };
    // One pass over the row (or the part read), k outputs; the heap of k is on-chip state.
    let mut work = WorkCounters::default();
    work.sweep(read);
    if !whole {
        return Err(RowStats::with_work(work));
    }
    for (o, &r) in out.iter_mut().zip(&heap[..k]) {
        *o = r.index();
    }
    out.sort_unstable();
    work.write(k);
    Ok(RowStats::with_work(work))
}

/// Fills the slots past the k real ones, so that every inner node has all its children: the
/// largest rank of the rank type ([`RankBits::MAX`]). A value only ever moves past a strictly
/// smaller one, and no rank is larger than `PAD`: pads never move and real ranks never enter
/// their slots, so the real ranks stay in the first k slots (even a real rank equal to `PAD`:
/// a NaN at index 0 in largest mode).
#[cfg(test)]
const PAD: u64 = u64::MAX;

/// Slots and height of the smallest complete 4-ary tree with at least `k` slots:
/// `1 + 4 + … + 4^h` slots, `h` levels below the root.
fn full_tree(k: usize) -> (usize, u32) {
    let (mut slots, mut height) = (1usize, 0);
    while slots < k {
        slots = slots.saturating_mul(ARITY).saturating_add(1);
        height += 1;
    }
    (slots, height)
}

/// Leaves the `k` largest ranks of `row` in `heap[..k]`: returns the elements read and
/// `true`, or `false` once more elements past the first `k` entered the heap than
/// `allowed(read)` at a check (`read` = 2k, 4k, 8k, …: the checks cost nothing measurable).
/// `heap` has the slots of [`full_tree`]`(k)`, `steps` is its height.
fn keep_best<E: Element>(
    row: &[E],
    k: usize,
    heap: &mut [RankOf<E>],
    steps: u32,
    allowed: &dyn Fn(usize) -> usize,
    key_of: impl Fn(E) -> E::Key + Copy,
) -> (usize, bool) {
    for ((slot, &v), i) in heap[..k].iter_mut().zip(row).zip(0u32..) {
        *slot = key_of(v).rank(i);
    }
    heap[k..].fill(RankOf::<E>::MAX);
    heapify(heap);
    let mut chunks = row[k..].chunks_exact(CHUNK);
    let (mut start, mut entered, mut check) = (k, 0usize, 2 * k);
    for chunk in &mut chunks {
        entered += offer(heap, steps, chunk, start as u32, key_of);
        start += CHUNK;
        if start >= check {
            if entered > allowed(start) {
                return (start, false);
            }
            check = check.saturating_mul(2);
        }
    }
    offer(heap, steps, chunks.remainder(), start as u32, key_of);
    (row.len(), true)
}

/// Offers the elements of `chunk` (at most [`CHUNK`], indices from `start`) to the heap;
/// returns how many entered it.
#[inline(always)]
fn offer<E: Element>(
    heap: &mut [RankOf<E>],
    steps: u32,
    chunk: &[E],
    start: u32,
    key_of: impl Fn(E) -> E::Key,
) -> usize {
    // The root's key is one of the row's keys, so it fits the key type.
    let mut mask = survivors(chunk, E::Key::of_rank(heap[0]), &key_of);
    let mut entered = 0;
    while mask != 0 {
        let j = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        let r = key_of(chunk[j]).rank(start + j as u32);
        // The root may have risen since the chunk was filtered.
        if r > heap[0] {
            replace_root(heap, steps, r);
            entered += 1;
        }
    }
    entered
}

/// One bit per element of `chunk` (at most 32) whose key beats `root_key`; equal keys lose,
/// because every index in the heap is lower. No branch, so full chunks compile to a vector
/// compare.
#[inline(always)]
fn survivors<E: Element>(chunk: &[E], root_key: E::Key, key_of: impl Fn(E) -> E::Key) -> u32 {
    chunk.iter().enumerate().fold(0, |mask, (j, &v)| mask | u32::from(key_of(v) > root_key) << j)
}

/// Turns a complete 4-ary tree into a min-heap, sinking every inner node from the last one
/// up (O(k)).
fn heapify<R: RankBits>(heap: &mut [R]) {
    for pos in (0..inner_nodes(heap)).rev() {
        sift_down(heap, pos);
    }
}

/// Sinks `heap[pos]` until no child is smaller (the textbook loop; used only by [`heapify`]).
fn sift_down<R: RankBits>(heap: &mut [R], mut pos: usize) {
    let x = heap[pos];
    while pos < inner_nodes(heap) {
        let (child, c) = smallest_child(heap, pos);
        if c >= x {
            break;
        }
        heap[pos] = c;
        pos = child;
    }
    heap[pos] = x;
}

/// Puts `x` in place of the root (the smallest rank) and restores the heap, without branches.
///
/// The hole left at the root takes `steps` (the tree's height) steps down. Each step moves
/// the smallest child up only if it is smaller than `x`; once `x` fits, `pos` stops moving and
/// the remaining steps rewrite the same slot.
#[inline(always)]
fn replace_root<R: RankBits>(heap: &mut [R], steps: u32, x: R) {
    let mut pos = 0;
    for _ in 0..steps {
        let (child, c) = smallest_child(heap, pos);
        // A mask, not `if c < x { child } else { pos }`: LLVM would make the `if` a branch.
        let up = usize::from(c < x).wrapping_neg();
        heap[pos] = c.min(x);
        pos ^= (pos ^ child) & up;
    }
    heap[pos] = x;
}

/// Inner nodes of a complete 4-ary tree: the slots that have children.
#[inline(always)]
fn inner_nodes<R: RankBits>(heap: &[R]) -> usize {
    (heap.len() - 1) / ARITY
}

/// The slot and value of the smallest child of the inner node `pos`, by a tournament of
/// conditional moves.
#[inline(always)]
fn smallest_child<R: RankBits>(heap: &[R], pos: usize) -> (usize, R) {
    let first = ARITY * pos + 1;
    let kids = &heap[first..first + ARITY];
    let (i01, ab) = if kids[1] < kids[0] { (1, kids[1]) } else { (0, kids[0]) };
    let (i23, cd) = if kids[3] < kids[2] { (3, kids[3]) } else { (2, kids[2]) };
    let (i, v) = if cd < ab { (i23, cd) } else { (i01, ab) };
    (first + i, v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::{Options, topk_row};
    use crate::test_rows::{
        assert_hand_checked, assert_one_scratch, assert_shaped_rows, assert_small_widths,
        assert_special_values, noise, noise_shapes,
    };

    #[test]
    fn work_is_one_pass_and_k_outputs() {
        let row = noise(100, 3);
        let stats = topk_row(&Heap, &row, 7, Options::default()).unwrap().stats;
        let w = stats.work;
        assert_eq!((w.elements_read, w.elements_written, w.passes, w.merges), (100, 7, 1, 0));
    }

    fn is_min_heap(h: &[u64]) -> bool {
        (1..h.len()).all(|i| h[(i - 1) / ARITY] <= h[i])
    }

    /// A padded heap holding `values`, as `keep_best` builds it.
    fn padded(values: &[u64]) -> (Vec<u64>, u32) {
        let (slots, steps) = full_tree(values.len());
        let mut h = vec![PAD; slots];
        h[..values.len()].copy_from_slice(values);
        heapify(&mut h);
        (h, steps)
    }

    #[test]
    fn full_trees() {
        let sizes: Vec<_> = [1, 2, 5, 6, 21, 22, 32].into_iter().map(full_tree).collect();
        assert_eq!(sizes, [(1, 0), (5, 1), (5, 1), (21, 2), (21, 2), (85, 3), (85, 3)]);
    }

    #[test]
    fn heap_operations_keep_the_heap_order() {
        let (mut h, steps) = padded(&[9, 4, 7, 1, 8, 2]);
        assert!(is_min_heap(&h) && h[0] == 1);
        replace_root(&mut h, steps, 5);
        assert!(is_min_heap(&h) && h[0] == 2);
        let mut kept = h[..6].to_vec();
        kept.sort_unstable();
        assert_eq!(kept, [2, 4, 5, 7, 8, 9]);
        assert!(h[6..].iter().all(|&x| x == PAD), "pads never move");
    }

    #[test]
    fn replacing_the_root_keeps_the_k_largest_at_every_size() {
        for k in 1..=90 {
            let mut values: Vec<u64> =
                noise(k + 300, k as u64).iter().map(|v| v.to_bits().into()).collect();
            values[k / 2] = PAD; // a real value equal to the pad must stay among the k
            let (mut h, steps) = padded(&values[..k]);
            assert!(is_min_heap(&h), "k={k}");
            for &x in &values[k..] {
                if x > h[0] {
                    replace_root(&mut h, steps, x);
                    assert!(is_min_heap(&h), "k={k}");
                }
            }
            let mut want = values.clone();
            want.sort_unstable_by(|a, b| b.cmp(a));
            // Ties in `values` are possible here; compare the kept values as multisets.
            let mut kept = h[..k].to_vec();
            kept.sort_unstable_by(|a, b| b.cmp(a));
            assert_eq!(kept, want[..k], "k={k}");
        }
    }

    #[test]
    fn shaped_rows_match_the_oracle() {
        let m = 3001; // not a multiple of 32
        assert_shaped_rows(&Heap, m, &[1, 2, 31, 32, 33, 500, m / 2, m - 1, m]);
    }

    #[test]
    fn hand_checked_rows() {
        assert_hand_checked(&Heap);
    }

    #[test]
    fn special_values_in_both_modes() {
        assert_special_values(&Heap);
    }

    #[test]
    fn small_and_odd_widths() {
        assert_small_widths(&Heap, &[1, 2, 3, 5, 31, 33, 63, 65, 100, 257]);
    }

    #[test]
    fn scratch_is_reused_across_rows_of_different_shapes() {
        assert_one_scratch(&Heap, &noise_shapes());
    }
}
