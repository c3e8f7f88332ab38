//! `torch-radix` — the radix select behind `torch.topk` on CUDA (PyTorch's single-block top-k:
//! `radixSelect` followed by `gatherTopK`).
//!
//! # Idea
//! Find the k-th key one **2-bit digit** at a time, from the top, without ever moving data:
//! the candidates are described by a pattern — `desired` bits under a `desiredMask` — and every
//! pass re-reads the whole input, counting the 4 digit values among the elements that match
//! the pattern. Walking the 4 counts from the top:
//!
//! * a bin with count 1 while exactly one more element is wanted holds the k-th element
//!   itself: one more sweep (`findPattern`) finds that unique element and the search ends;
//! * the first bin whose count reaches the number still wanted is the k-th key's digit: it is
//!   appended to the pattern and the next pass looks at the next digit;
//! * otherwise its elements are all above the k-th key and are subtracted from what is wanted.
//!
//! With 32-bit keys that is **at most 16 counting passes** over the input (all of them when
//! the k-th key is tied or shares its prefix with others down to the last digit) — **8** with
//! the 16-bit keys of `f16` and `bf16` rows, as torch's loop over `sizeof(scalar_t) * 8` bits
//! runs for `at::Half` and `at::BFloat16` — plus one
//! `findPattern` sweep when a unique element ends the search early. Then the gather writes
//! the result in two sweeps: every element whose key is **greater** than the k-th, then, from
//! the start again, the elements **equal** to it until k are written (that sweep stops early).
//! Taking ties in index order is what makes the result canonical here (docs/contract.md §1; the order keys
//! merge ±0 and put NaN on top, as the contract asks — torch's own conversion keeps ±0 apart).
//!
//! # Cost
//! Time O(16·M): every pass reads the whole input, but nothing is ever written except the k
//! results. On float data the top digits (sign, exponent) split the candidates little, so
//! even distinct values need many passes: `rtopk bench cpu --compare` measured 9–14 sweeps
//! in all per row of 256–4096 uniform or normal values, 12–19 on vectors of 2^20 and 2^24,
//! and about 18 on radix-adversarial data. Extra memory: none beyond 4 counters.
//!
//! # On a GPU
//! One thread block per row (slice): each counting pass has every thread count its elements
//! into 4 per-thread counters, reduced across the warp with ballots and popcounts and across
//! warps in shared memory; the bin walk is done redundantly by every thread, so no branch
//! diverges. No candidate buffer exists, so memory is O(1) — paid for with up to 16 full reads
//! of the slice. The gather uses a block-wide prefix sum of "has top-k" flags to place each
//! result. The counters ([`WorkCounters`]) count each sweep's loads (the ties sweep and
//! `findPattern` up to the chunk of 32 where they stop) and the k stores.

use crate::job::{Job, Keyed};
use topk_ref::algorithm::{BALLOT_WIDTH, RowStats, WorkCounters, selection_reads};
use topk_ref::order::{Element, KeyBits, Mode};

/// Bits per digit.
pub const RADIX_BITS: u32 = 2;
/// Digit values (bins) per pass.
const RADIX_SIZE: usize = 1 << RADIX_BITS;
/// Digits of a 32-bit key: the most counting passes.
pub const MAX_COUNT_PASSES: u32 = u32::BITS / RADIX_BITS;
/// Digits of a 16-bit key (`f16`, `bf16`, `i16` rows): the most counting passes there (4 for
/// 8-bit keys, 32 for 64-bit keys: torch's radix select takes `int64` and `double` too).
pub const MAX_COUNT_PASSES_16: u32 = u16::BITS / RADIX_BITS;

/// torch.topk's radix select (see the [module documentation](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TorchRadix;

/// What one row's run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TorchTrace {
    /// Counting passes (1 to 16; 1 to 8 on 16-bit keys, 1 to 4 on 8-bit keys, 1 to 32 on
    /// 64-bit keys).
    pub count_passes: u32,
    /// `true` when a unique element ended the search (one `findPattern` sweep).
    pub found_unique: bool,
    /// The data moved.
    pub work: WorkCounters,
}

impl TorchRadix {
    /// Runs one row ([`Job`]) and reports what it did.
    pub fn trace_row<E: Element>(&self, job: Job<'_, E>) -> TorchTrace {
        match job.mode {
            Mode::Largest => run(job.keyed(E::key_largest)),
            Mode::Smallest => run(job.keyed(E::key_smallest)),
        }
    }
}

fn run<E: Element, K: Fn(E) -> E::Key + Copy>(job: Keyed<'_, E, K>) -> TorchTrace {
    // The scratch goes unused: PyTorch's radix select keeps its counts on the stack.
    let Keyed { row, k, key_of, out, .. } = job;
    let n = row.len();
    let mut trace = TorchTrace::default();
    let kth = radix_select(row, k, key_of, &mut trace);
    // gatherTopK: the keys above the k-th, then the first ties, each in index order.
    // Fewer than k keys lie above the k-th, so `out` never fills here.
    let above = gather(row, |v| key_of(v) > kth, out);
    trace.work.sweep(n);
    let ties = &mut out[above..];
    gather(row, |v| key_of(v) == kth, ties);
    let last = ties.last().copied().unwrap_or(0);
    trace.work.sweep(selection_reads(last, n));
    trace.work.write(k);
    out.sort_unstable();
    trace
}

/// The k-th largest key, digit by digit with a prefix mask (`radixSelect`), from the top digit
/// of `E`'s key down.
fn radix_select<E: Element>(
    row: &[E],
    k: usize,
    key_of: impl Fn(E) -> E::Key + Copy,
    trace: &mut TorchTrace,
) -> E::Key {
    let zero = E::Key::default();
    let (mut desired, mut mask, mut wanted) = (zero, zero, k);
    for digit_pos in (0..E::Key::BITS / RADIX_BITS).rev().map(|d| d * RADIX_BITS) {
        let counts = count_digits(row, key_of, desired, mask, digit_pos);
        trace.work.sweep(row.len());
        trace.count_passes += 1;
        let digit_mask = E::Key::from_u64(RADIX_SIZE as u64 - 1) << digit_pos;
        for digit in (0..RADIX_SIZE).rev() {
            let count = counts[digit];
            let with_digit = desired | (E::Key::from_u64(digit as u64) << digit_pos);
            if count == 1 && wanted == 1 {
                // The unique answer: find the element matching the completed pattern.
                let (key, reads) = find_pattern(row, key_of, with_digit, mask | digit_mask);
                trace.work.sweep(reads);
                trace.found_unique = true;
                return key;
            }
            if count >= wanted {
                (desired, mask) = (with_digit, mask | digit_mask);
                break;
            }
            wanted -= count;
        }
    }
    desired
}

/// Counts of the digit at `pos` among the keys with `key & mask == desired`.
fn count_digits<E: Element>(
    row: &[E],
    key_of: impl Fn(E) -> E::Key,
    desired: E::Key,
    mask: E::Key,
    pos: u32,
) -> [usize; RADIX_SIZE] {
    // Four separate sums of 0/1 flags: no data-dependent index, so the loop vectorises.
    let mut counts = [0u32; RADIX_SIZE];
    for &v in row {
        let key = key_of(v);
        let hit = (key & mask) == desired;
        let digit = (key >> pos).low_byte() & (RADIX_SIZE - 1);
        for (b, c) in counts.iter_mut().enumerate() {
            *c += u32::from(hit && digit == b);
        }
    }
    counts.map(|c| c as usize)
}

/// The key of the element matching `desired` under `mask` (`findPattern`), and the elements
/// read to find it (whole chunks of 32).
fn find_pattern<E: Element>(
    row: &[E],
    key_of: impl Fn(E) -> E::Key,
    desired: E::Key,
    mask: E::Key,
) -> (E::Key, usize) {
    for (c, chunk) in row.chunks(BALLOT_WIDTH).enumerate() {
        if let Some(key) = chunk.iter().map(|&v| key_of(v)).find(|&key| key & mask == desired) {
            return (key, ((c + 1) * BALLOT_WIDTH).min(row.len()));
        }
    }
    // Unreachable when the count said one element matches; the pattern itself is then the
    // best answer there is.
    (desired, row.len())
}

/// Writes the indices of the elements `keep` takes, in index order, to the front of `out`
/// until it is full; returns how many.
fn gather<E: Element>(row: &[E], keep: impl Fn(E) -> bool, out: &mut [u32]) -> usize {
    let mut n = 0;
    for (i, &v) in row.iter().enumerate() {
        if n == out.len() {
            break;
        }
        if keep(v) {
            out[n] = i as u32;
            n += 1;
        }
    }
    n
}

topk_ref::row_select!(TorchRadix, "torch-radix", 64, |torch, row, k, mode, scratch, out| {
    RowStats::with_work(torch.trace_row(Job { row, k, mode, scratch, out }).work)
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::run_job;
    use topk_ref::oracle::canonical_indices;
    use topk_ref::order::ordered_value_of_key;

    fn trace(row: &[f32], k: usize) -> (Vec<u32>, TorchTrace) {
        run_job(row, k, Mode::Largest, |job| TorchRadix.trace_row(job))
    }

    #[test]
    fn all_ties_take_all_16_passes() {
        // Every key equal: no digit ever separates, so all 16 counting passes run; then the
        // "above" sweep (empty) and the ties sweep, which stops after the chunk holding the
        // k-th tie.
        let n = 1000;
        let row = vec![2.5f32; n];
        let (got, t) = trace(&row, 40);
        assert_eq!(got, canonical_indices(&row, 40, Mode::Largest));
        assert_eq!((t.count_passes, t.found_unique), (16, false));
        assert_eq!(t.work.passes, 16 + 2);
        assert_eq!(t.work.elements_read, (16 * n + n + 64) as u64);
        assert_eq!(t.work.elements_written, 40);
    }

    #[test]
    fn distinct_keys_end_on_a_unique_element() {
        // 4^8 consecutive keys: the top 8 digits are shared (8 passes with one live bin), the
        // low 8 digits split the candidates 4 ways each, so the maximum is alone after pass 16:
        // 16 counting passes + findPattern + the two gather sweeps.
        let n = 1 << 16;
        let base = 0x8000_0000u32;
        let row: Vec<f32> =
            (0..n as u32).map(|i| ordered_value_of_key(base + (i * 40503) % n as u32)).collect();
        let (got, t) = trace(&row, 1);
        assert_eq!(got, canonical_indices(&row, 1, Mode::Largest));
        assert_eq!((t.count_passes, t.found_unique), (16, true));
        assert_eq!(t.work.passes, 16 + 1 + 2);
        // k = 1 among keys that are unique from the top: the first digit's top bin holds
        // one element, so one counting pass and findPattern end the search.
        let mut row2 = row.clone();
        row2[777] = f32::NAN;
        let (got, t) = trace(&row2, 1);
        assert_eq!(got, [777]);
        assert_eq!((t.count_passes, t.found_unique, t.work.passes), (1, true, 1 + 1 + 2));
        // findPattern stops after the chunk of index 777; the ties sweep after that chunk too.
        assert_eq!(t.work.elements_read, (n + 800 + n + 800) as u64);
    }

    #[test]
    fn sixteen_bit_keys_take_at_most_8_passes() {
        // All ties: every digit of the 16-bit key is counted, 8 passes (16 for f32 keys).
        let row = vec![topk_ref::bf16::from_f32(2.5); 1000];
        let (out, t) = run_job(&row, 40, Mode::Largest, |job| TorchRadix.trace_row(job));
        assert_eq!(out, canonical_indices(&row, 40, Mode::Largest));
        assert_eq!((t.count_passes, t.found_unique), (MAX_COUNT_PASSES_16, false));
        assert_eq!(t.work.passes, 8 + 2);
        assert_eq!(t.work.elements_read, (8 * 1000 + 1000 + 64) as u64);
        // Every f16 bit pattern: the unique maximum (a NaN ties with the other NaNs, so k = 1
        // takes the first NaN by index) within 8 passes.
        let all: Vec<topk_ref::f16> = (0..=u16::MAX).map(topk_ref::f16::from_bits).collect();
        for k in [1, 1000, 40_000] {
            for mode in [Mode::Largest, Mode::Smallest] {
                let (out, t) = run_job(&all, k, mode, |job| TorchRadix.trace_row(job));
                assert_eq!(out, canonical_indices(&all, k, mode), "k={k} {mode:?}");
                assert!(t.count_passes <= 8, "{t:?}");
            }
        }
    }

    #[test]
    fn special_values_and_both_modes() {
        let row =
            [0.5, f32::NAN, -0.0, 0.0, f32::INFINITY, -f32::NAN, 1.0e-45, f32::NEG_INFINITY, 0.5];
        for k in 1..=row.len() {
            for mode in [Mode::Largest, Mode::Smallest] {
                let (out, _) = run_job(&row, k, mode, |job| TorchRadix.trace_row(job));
                assert_eq!(out, canonical_indices(&row, k, mode), "k={k} {mode:?}");
            }
        }
    }
}
