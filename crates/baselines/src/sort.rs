//! `sort` — sort-and-choose: sort the whole row, keep the first k (paper 004, §2.2: "sort the
//! input vector elements using sorting algorithms, like in THRUST, and choose the top-k").
//!
//! # Idea
//! The naive reference every top-k paper beats. GPU libraries sort 32-bit keys with a radix
//! sort (CUB's onesweep, behind `thrust::sort`), so that is what runs here: an LSD radix sort
//! of (key, index) pairs on the descending order key — four stable scatter passes of 8 bits,
//! after one sweep that builds all four digit histograms; **two** passes for the 16-bit keys of
//! `f16` and `bf16` rows (CUB sorts those as 16-bit keys). Stability keeps equal keys in index
//! order, so the first k pairs are exactly the canonical top-k (docs/contract.md §1); their indices are
//! then sorted for the output.
//!
//! # Cost
//! Time O(M) but with a large constant: 5 sweeps over M elements and 4·M pair writes (3 and 2·M
//! on 16-bit keys), whatever k is — the whole order of the row is computed and all but k of it discarded. Extra memory:
//! two buffers of M pairs (`u64`) in the scratch.
//!
//! # On a GPU
//! The histogram sweep is one kernel (all digit histograms at once); each scatter pass is a
//! kernel in which a block ranks its tile's digits in shared memory and writes every pair to
//! its global position (decoupled look-back gives the offsets). Throughput is high, but the
//! traffic — about `5·M` reads and `4·M` pair writes — is what top-k algorithms avoid: they
//! need only the k-th key and one selection pass. The counters ([`WorkCounters`]) count
//! exactly those loads and stores.

use crate::job::{Job, Keyed};
use topk_ref::algorithm::{RowStats, WorkCounters, grow};
use topk_ref::order::{Element, KeyBits, Mode};

/// Bits per digit of the radix sort.
const DIGIT_BITS: u32 = 8;
/// Bins per digit.
const BINS: usize = 1 << DIGIT_BITS;
/// Digits of a 32-bit key: the scatter passes.
pub const SCATTER_PASSES: usize = (u32::BITS / DIGIT_BITS) as usize;
/// Digits of a 16-bit key (`f16`, `bf16` rows): the scatter passes there.
pub const SCATTER_PASSES_16: usize = (u16::BITS / DIGIT_BITS) as usize;

/// Sort-and-choose with an LSD radix sort (see the [module documentation](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SortChoose;

impl SortChoose {
    /// Runs one row ([`Job`]); returns the work.
    pub fn work_row<E: Element>(&self, job: Job<'_, E>) -> WorkCounters {
        match job.mode {
            Mode::Largest => run(job.keyed(E::key_largest)),
            Mode::Smallest => run(job.keyed(E::key_smallest)),
        }
    }
}

/// The sort key of a pair: the order key inverted within its width (ascending sort =
/// descending key) in the high word, the index in the low word. Stable digit passes on the
/// high word keep ties by index.
#[inline(always)]
fn entry<K: KeyBits>(key: K, index: usize) -> u64 {
    (u64::from(K::MAX.to_u32() - key.to_u32()) << 32) | index as u64
}

/// The digit of pass `p` of an entry.
#[inline(always)]
fn digit(e: u64, p: usize) -> usize {
    (e >> (32 + DIGIT_BITS as usize * p)) as usize & (BINS - 1)
}

fn run<E: Element, K: Fn(E) -> E::Key + Copy>(job: Keyed<'_, E, K>) -> WorkCounters {
    let Keyed { row, k, key_of, scratch, out } = job;
    let n = row.len();
    let mut work = WorkCounters::default();
    let passes = (E::Key::BITS / DIGIT_BITS) as usize;
    // Upsweep: the histograms of all the key's digits in one sweep.
    let mut all = [[0usize; BINS]; SCATTER_PASSES];
    let hist = &mut all[..passes];
    for (i, &v) in row.iter().enumerate() {
        let e = entry(key_of(v), i);
        for (p, h) in hist.iter_mut().enumerate() {
            h[digit(e, p)] += 1;
        }
    }
    work.sweep(n);
    let a = grow(&mut scratch.ranks, n);
    let b = grow(&mut scratch.ranks2, n);
    // Scatter 0 loads the input itself and forms the pairs on the fly.
    let mut next = offsets(&hist[0]);
    for (i, &v) in row.iter().enumerate() {
        let e = entry(key_of(v), i);
        let d = digit(e, 0);
        a[next[d]] = e;
        next[d] += 1;
    }
    // The other scatters between the two buffers: a -> b -> a -> b.
    let (mut src, mut dst) = (a, b);
    for (p, h) in hist.iter().enumerate().skip(1) {
        let mut next = offsets(h);
        for &e in src.iter() {
            let d = digit(e, p);
            dst[next[d]] = e;
            next[d] += 1;
        }
        std::mem::swap(&mut src, &mut dst);
    }
    for _ in 0..passes {
        work.sweep(n);
        work.write(n);
    }
    // Choose: the first k pairs of the sorted row.
    for (o, &e) in out.iter_mut().zip(src.iter()) {
        *o = e as u32;
    }
    work.read(k);
    work.write(k);
    out.sort_unstable();
    work
}

/// Exclusive prefix sum of a histogram: where each digit's run starts.
fn offsets(hist: &[usize; BINS]) -> [usize; BINS] {
    let mut next = [0; BINS];
    let mut sum = 0;
    for (o, &c) in next.iter_mut().zip(hist) {
        *o = sum;
        sum += c;
    }
    next
}

// The sort sorts key-index pairs packed in 64 bits (key in the high word): keys of at most
// 32 bits (`f64` and `i64` rows are refused with `TopKError::UnsupportedElement`).
topk_ref::row_select!(SortChoose, "sort", 32, |sort, row, k, mode, scratch, out| {
    RowStats::with_work(sort.work_row(Job { row, k, mode, scratch, out }))
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::run_job;
    use topk_ref::oracle::canonical_indices;

    #[test]
    fn five_sweeps_and_four_scatters_whatever_k() {
        let row: Vec<f32> = (0..777).map(|i| ((i * 7919) % 101) as f32 - 50.0).collect();
        for k in [1, 100, 777] {
            for mode in [Mode::Largest, Mode::Smallest] {
                let (out, w) = run_job(&row, k, mode, |job| SortChoose.work_row(job));
                assert_eq!(out, canonical_indices(&row, k, mode), "k={k} {mode:?}");
                assert_eq!(w.passes, 5);
                assert_eq!(w.elements_read, (5 * 777 + k) as u64);
                assert_eq!(w.elements_written, (4 * 777 + k) as u64);
            }
        }
    }

    #[test]
    fn sixteen_bit_keys_take_two_scatters() {
        let row: Vec<topk_ref::f16> =
            (0..777).map(|i| topk_ref::f16::from_f32(((i * 7919) % 101) as f32 - 50.0)).collect();
        for k in [1, 100, 777] {
            for mode in [Mode::Largest, Mode::Smallest] {
                let (out, w) = run_job(&row, k, mode, |job| SortChoose.work_row(job));
                assert_eq!(out, canonical_indices(&row, k, mode), "k={k} {mode:?}");
                assert_eq!(w.passes, 1 + SCATTER_PASSES_16 as u64);
                assert_eq!(w.elements_read, (3 * 777 + k) as u64);
                assert_eq!(w.elements_written, (2 * 777 + k) as u64);
            }
        }
    }

    #[test]
    fn ties_stay_in_index_order() {
        let row = [1.0, f32::NAN, 1.0, -0.0, 0.0, -f32::NAN, 1.0];
        for k in 1..=row.len() {
            for mode in [Mode::Largest, Mode::Smallest] {
                let (out, _) = run_job(&row, k, mode, |job| SortChoose.work_row(job));
                assert_eq!(out, canonical_indices(&row, k, mode), "k={k} {mode:?}");
            }
        }
    }
}
