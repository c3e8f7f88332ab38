//! `bitonic` — bitonic top-k in the style of Shanbhag, Pirk and Madden (2018), the GPU top-k
//! that RTop-K compares against.
//!
//! # Idea
//! Every element becomes its unique [`rank`](crate::order::KeyBits::rank) (key and index in
//! one `u64`, `u128` for 64-bit keys; larger = earlier in the canonical order), so "the K
//! largest ranks" *is* the canonical top-K. Let
//! `K = k.next_power_of_two()` and cut the row into runs of K, padding the last run with the
//! rank 0, which is below every real element (the low word of a real rank is `!index`, never 0).
//! 1. **Sort** every run, largest first, with a bitonic sorting network.
//! 2. **Merge** two runs A and B by comparing `A[i]` with its *reversed partner* `B[K-1-i]` and
//!    keeping the larger. A falls and B read backwards rises, so the result is bitonic (it falls,
//!    then rises). It holds the K largest of the 2K: if t of them come from A, they are
//!    `A[..t]` and `B[..K-t]`, and these are exactly the winners of the pairs. Half the data
//!    is gone in one data-parallel step. (The paper sorts neighbouring runs in opposite
//!    directions and compares `A[i]` with `B[i]`; reading B backwards is the same comparison
//!    and lets every run be sorted the same way.)
//! 3. **Rebuild**: a bitonic merging network turns that bitonic run back into a sorted one.
//!
//! Steps 2–3 repeat as a tree — runs 0+1, 2+3, … then 0+2, 4+6, … — halving the data every
//! round until one run is left. Its first k ranks are the canonical top-k; their indices are
//! sorted ascending for the output. With an odd number of runs in a round, the last run waits,
//! already sorted, for the next round; the shape of the tree depends only on M and k.
//!
//! # Cost
//! Sorting M/K runs costs `(M/4) · log K · (log K + 1)` compare-exchanges; each of the
//! `M/K - 1` merges costs `K + (K/2) · log K`. So O(M log² K) in all, against O(M) for a
//! selection such as [`crate::Bisect`]: the network sorts far more than the answer needs — the
//! order inside every run, and the order of the top-k itself, which the output then discards.
//! Extra memory here: the padded row of ranks, O(M) ranks, in [`crate::Scratch::ranks`] (or
//! [`crate::Scratch::wide_ranks`]).
//!
//! # On a GPU warp
//! Hold one element per lane (or a few per lane, in registers). Every stage of a network pairs
//! element `i` with element `i ^ j` — the half-cleaner with `j`, the mirror of a block of `s`
//! with `s - 1` — so each stage is one `__shfl_xor_sync` followed by a `max` or `min` picked by
//! the lane's own bits. No stage depends on the data: no branches, no divergence, no shared
//! memory traffic, a fixed schedule. That is why GPUs like bitonic networks — and the price is
//! the work counted above: a warp sorts what a selection would only have to find.

use crate::algorithm::{RowStats, WorkCounters, grow};
use crate::order::{Element, KeyBits, Mode, RankBits, RankOf};

/// The rank of a padding slot: below every real element (the low word of a real rank is
/// `!index`, never 0 for a row index below `u32::MAX`).
pub const PAD: u64 = 0;

/// Bitonic top-k: sort runs of K with a bitonic network, then merge and rebuild pairs of runs
/// until one run of K is left (see the [module documentation](self)).
#[derive(Clone, Copy, Debug, Default)]
pub struct Bitonic;

crate::row_select!(Bitonic, "bitonic", 64, |_, row, k, mode, scratch, out| {
    let run_len = k.next_power_of_two();
    let runs = row.len().div_ceil(run_len);
    let data = grow(RankOf::<E>::buffers(scratch).0, runs * run_len);
    let (real, padding) = data.split_at_mut(row.len());
    ranks_into(row, mode, real);
    padding.fill(RankOf::<E>::MIN);
    // The ranks are computed as the row is loaded: one sweep of reads.
    let mut work = WorkCounters::default();
    work.sweep(row.len());
    let top = top_run(data, run_len, &mut work);
    out.iter_mut().zip(top).for_each(|(o, &r)| *o = r.index());
    work.read(k);
    work.write(k);
    out.sort_unstable();
    RowStats::with_work(work)
});

/// The K largest ranks of `data` (whose length is a multiple of `run_len` = K, a power of two),
/// sorted largest first. Works in place: the answer is left in the first run.
///
/// Adds to `work`: the run sort reads and writes every run once (a sweep; the network itself
/// runs on chip), then [`merge_sorted_runs`].
pub fn top_run<'d, R: RankBits>(
    data: &'d mut [R],
    run_len: usize,
    work: &mut WorkCounters,
) -> &'d [R] {
    for run in data.chunks_exact_mut(run_len) {
        sort_run(run);
    }
    work.sweep(data.len());
    work.write(data.len());
    merge_sorted_runs(data, run_len, work)
}

/// The K largest of runs that are each already sorted largest first (`data.len()` a multiple of
/// `run_len` = K, a power of two), sorted largest first, left in the first run.
///
/// Adds to `work`: each merge reads two runs and writes one (the rebuild runs on chip), and
/// counts as one merge; the first round, which reads every run, counts as a pass.
pub fn merge_sorted_runs<'d, R: RankBits>(
    data: &'d mut [R],
    run_len: usize,
    work: &mut WorkCounters,
) -> &'d [R] {
    let runs = data.len() / run_len;
    if runs > 1 {
        work.passes += 1;
    }
    // Round by round, run `a` absorbs run `a + gap`; the survivors sit `2 * gap` runs apart.
    let mut gap = 1;
    while gap < runs {
        let mut a = 0;
        while a + gap < runs {
            merge_runs(data, a * run_len, (a + gap) * run_len, run_len);
            rebuild(&mut data[a * run_len..(a + 1) * run_len]);
            work.read(2 * run_len);
            work.write(run_len);
            work.merges += 1;
            a += 2 * gap;
        }
        gap *= 2;
    }
    &data[..run_len]
}

/// Writes the rank of every element of `row` into `ranks` (same length).
fn ranks_into<E: Element>(row: &[E], mode: Mode, ranks: &mut [RankOf<E>]) {
    // One loop per mode, so neither carries a per-element mode branch. Row indices fit in u32
    // (the driver caps the width at `MAX_ROW_WIDTH`).
    let indexed = ranks.iter_mut().zip(row).zip(0u32..);
    match mode {
        Mode::Largest => indexed.for_each(|((r, &v), i)| *r = v.key_largest().rank(i)),
        Mode::Smallest => {
            indexed.for_each(|((r, &v), i)| *r = v.key_smallest().rank(i));
        }
    }
}

/// Puts the larger of `a`, `b` in `a` and the smaller in `b`: the network's only operation.
#[inline(always)]
fn exchange<R: RankBits>(a: &mut R, b: &mut R) {
    // min/max rather than a swap under `if`: branch-free, like the lanes of a warp.
    let (x, y) = (*a, *b);
    *a = x.max(y);
    *b = x.min(y);
}

/// Sorts a run whose length is a power of two, largest first: merge sorted blocks of 1, 2,
/// 4, … into sorted blocks of twice the size.
pub fn sort_run<R: RankBits>(run: &mut [R]) {
    let mut block = 2;
    while block <= run.len() {
        // Two sorted halves, the second read backwards, form a bitonic block: compare each
        // element with its mirror, then finish with the half-cleaners of a bitonic merge.
        run.chunks_exact_mut(block).for_each(mirror_stage);
        let mut half = block / 4;
        while half > 0 {
            half_cleaner_stage(run, half);
            half /= 2;
        }
        block *= 2;
    }
}

/// Sorts a bitonic run (length a power of two), largest first: the bitonic merging network.
pub fn rebuild<R: RankBits>(run: &mut [R]) {
    let mut half = run.len() / 2;
    while half > 0 {
        half_cleaner_stage(run, half);
        half /= 2;
    }
}

/// Compare-exchanges element `i` of `block` with its mirror `len - 1 - i`, larger first.
fn mirror_stage<R: RankBits>(block: &mut [R]) {
    let (front, back) = block.split_at_mut(block.len() / 2);
    front.iter_mut().zip(back.iter_mut().rev()).for_each(|(a, b)| exchange(a, b));
}

/// One stage of a bitonic merge: in every block of `2 * half`, compare-exchange element `i`
/// with element `i + half`, larger first.
fn half_cleaner_stage<R: RankBits>(run: &mut [R], half: usize) {
    match half {
        // Blocks this small would spend more on loop control than on comparing.
        1 => run.chunks_exact_mut(2).for_each(|pair| {
            if let [a, b] = pair {
                exchange(a, b);
            }
        }),
        _ => run.chunks_exact_mut(2 * half).for_each(|block| {
            let (front, back) = block.split_at_mut(half);
            front.iter_mut().zip(back).for_each(|(a, b)| exchange(a, b));
        }),
    }
}

/// Leaves in the run at `a` the larger of `data[a + i]` and its reversed partner
/// `data[b + len - 1 - i]`: the K largest of both sorted runs, as a bitonic run (`a < b`).
fn merge_runs<R: RankBits>(data: &mut [R], a: usize, b: usize, len: usize) {
    let (front, back) = data.split_at_mut(b);
    keep_larger_reversed(&mut front[a..a + len], &back[..len]);
}

/// `dst[i] = max(dst[i], src[len - 1 - i])` for two sorted (largest first) runs of the same
/// length: `dst` becomes a bitonic run holding the `len` largest of both (see the module docs),
/// ready for [`rebuild`].
pub fn keep_larger_reversed<R: RankBits>(dst: &mut [R], src: &[R]) {
    debug_assert_eq!(dst.len(), src.len());
    dst.iter_mut().zip(src.iter().rev()).for_each(|(d, &s)| *d = (*d).max(s));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::canonical_indices;
    use crate::test_rows::{assert_one_scratch, unsorted};

    fn run(row: &[f32], k: usize, mode: Mode) -> Vec<u32> {
        unsorted(&Bitonic, row, k, mode)
    }

    fn check(row: &[f32], k: usize) {
        for mode in [Mode::Largest, Mode::Smallest] {
            let want = canonical_indices(row, k, mode);
            assert_eq!(run(row, k, mode), want, "M={} k={k} {mode:?}", row.len());
        }
    }

    /// A deterministic scrambled row with plenty of repeated values.
    fn scrambled(m: usize) -> Vec<f32> {
        (0..m).map(|i| ((i * 7919 + 13) % 97) as f32 * 0.25 - 12.0).collect()
    }

    #[test]
    fn hand_checked_rows() {
        let row = [0.5, 4.0, -1.0, 4.0, 2.0, 9.0, 3.0];
        // K = 4, runs {0.5 4 -1 4} and {2 9 3 pad}: the top 3 are 9, 4 (index 1), 4 (index 3).
        assert_eq!(run(&row, 3, Mode::Largest), vec![1, 3, 5]);
        assert_eq!(run(&row, 2, Mode::Smallest), vec![0, 2]);
        assert_eq!(run(&row, 1, Mode::Largest), vec![5]);
        assert_eq!(run(&[3.0, 1.0, 2.0], 3, Mode::Smallest), vec![0, 1, 2]);
        assert_eq!(run(&[5.0], 1, Mode::Largest), vec![0]);
    }

    #[test]
    fn networks_sort_and_merge() {
        let mut data: Vec<u64> = vec![5, 1, 9, 3, 7, 2, 8, 6];
        sort_run(&mut data);
        assert_eq!(data, [9, 8, 7, 6, 5, 3, 2, 1]);
        // Runs {10 4 2 1} and {9 8 3 0}: pairs (10,0) (4,3) (2,8) (1,9) -> bitonic {10 4 8 9}.
        let mut two: Vec<u64> = vec![10, 4, 2, 1, 9, 8, 3, 0];
        merge_runs(&mut two, 0, 4, 4);
        assert_eq!(two[..4], [10, 4, 8, 9]);
        rebuild(&mut two[..4]);
        assert_eq!(two[..4], [10, 9, 8, 4]);
        let mut three: Vec<u64> = vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
        let mut work = WorkCounters::default();
        assert_eq!(top_run(&mut three, 4, &mut work), [12, 11, 10, 9]);
        // One sort sweep of 12 (read and written), two merges of 2 runs of 4 into 1.
        assert_eq!(work.elements_read, 12 + 2 * 8);
        assert_eq!(work.elements_written, 12 + 2 * 4);
        assert_eq!((work.passes, work.merges), (2, 2));
    }

    #[test]
    fn every_k_and_width() {
        for m in [1, 2, 7, 31, 32, 33, 100, 1000] {
            let row = scrambled(m);
            let ks = [1, 2, 3, 5, 31, 32, 33, m.saturating_sub(1), m];
            for k in ks.into_iter().filter(|&k| (1..=m).contains(&k)) {
                check(&row, k);
            }
        }
    }

    #[test]
    fn all_equal_sorted_and_reversed_rows() {
        for m in [1, 7, 33, 100, 257] {
            let up: Vec<f32> = (0..m).map(|i| i as f32).collect();
            let down: Vec<f32> = up.iter().rev().copied().collect();
            let flat = vec![2.5f32; m];
            for k in [1, 2, 5, 32, 33, m - 1, m].into_iter().filter(|&k| (1..=m).contains(&k)) {
                check(&up, k);
                check(&down, k);
                check(&flat, k);
            }
        }
        assert_eq!(run(&[2.5; 9], 4, Mode::Largest), vec![0, 1, 2, 3]);
        assert_eq!(run(&[2.5; 9], 4, Mode::Smallest), vec![0, 1, 2, 3]);
    }

    #[test]
    fn special_values_in_both_modes() {
        let tiny = f32::from_bits(1);
        let row = [
            0.0,
            f32::NAN,
            -0.0,
            f32::INFINITY,
            tiny,
            -tiny,
            f32::NEG_INFINITY,
            f32::from_bits(0xffc0_1234),
            1.0,
            -f32::MAX,
            f32::MIN_POSITIVE,
            0.0,
            -0.0,
        ];
        for k in 1..=row.len() {
            check(&row, k);
        }
        // NaN ranks above +inf; in smallest mode NaNs come last.
        assert_eq!(run(&row, 3, Mode::Largest), vec![1, 3, 7]);
        assert_eq!(run(&row, 2, Mode::Smallest), vec![6, 9]);
        // -0.0 and +0.0 tie, so the lower indices win.
        assert_eq!(run(&[-0.0, 0.0, -0.0, 0.0], 2, Mode::Largest), vec![0, 1]);
        assert_eq!(run(&[0.0, -0.0, 0.0, -0.0], 3, Mode::Smallest), vec![0, 1, 2]);
    }

    #[test]
    fn random_rows_with_ties_and_specials() {
        const POOL: [f32; 8] =
            [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 0.0, 1.0, -1.0, 1e-45];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as usize % n
        };
        for _ in 0..400 {
            let m = 1 + next(300);
            let row: Vec<f32> = (0..m)
                .map(|_| if next(4) == 0 { POOL[next(POOL.len())] } else { next(50) as f32 - 25.0 })
                .collect();
            check(&row, 1 + next(m));
        }
    }

    #[test]
    fn scratch_is_reused_across_rows_of_different_shapes() {
        let cases = [(1000, 33), (7, 5), (100, 100), (31, 1), (1000, 999)]
            .map(|(m, k)| (scrambled(m), k, Mode::Largest));
        assert_one_scratch(&Bitonic, &cases);
    }
}
