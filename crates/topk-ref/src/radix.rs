//! `radix` — most-significant-digit radix select on the order keys.
//!
//! # Idea
//! The order keys ([`crate::order::key`]) are `u32`s whose integer order *is* the order of
//! docs/contract.md §1, so the k-th largest key can be found one 8-bit digit at a time, from the top:
//!
//! 1. Histogram the current digit over the candidates (at first: the whole row).
//! 2. Walk the bins from the top, adding up counts, until the running total reaches the
//!    remaining k. Every key in a higher bin is selected — add those to `above` and take them
//!    off k — and every key in a lower bin is rejected. Only the k-th bin stays a candidate.
//! 3. Copy that bin's keys into a dense list, so the next digit reads only them.
//!
//! After the last digit the candidates share all the key's bits: the k-th key is known exactly,
//! and so is `above`, the number of keys strictly above it. A key has as many digits as its
//! element type has bytes ([`Element::Key`]): four for `f32` and `i32`, **two for `f16`, `bf16`
//! and `i16`**, whose 16-bit keys need at most two digit passes (the work counters show it),
//! one for `i8` and `u8` (its one digit is histogrammed twice: as the top digit, then as the
//! last one), eight for `f64` and `i64`. The search stops earlier when the k-th
//! bin is selected whole (its count equals the remaining k): the k-th key is then the bin's
//! smallest key, found with one pass over the candidates. One pass in index order
//! ([`select_with_kth_key`]) then writes the canonical top-k: all keys above the k-th, then
//! the lowest indices among keys equal to it.
//!
//! # Cost
//! Time O(M): one sweep computes the keys and the top digit's histogram; one pass copies the
//! k-th bin's keys out; each later digit reads only the surviving keys (on float data the top
//! digit — sign and 7 exponent bits — leaves a sizeable share, the second digit very few);
//! the final selection reads the row's keys once more. Besides, each digit walks 256 bins
//! (16 group sums, then at most 16 bins). Extra memory: M keys and M candidate keys (of the
//! element's key type) in the scratch; histograms on the stack (4 × 256 counters for the first
//! sweep, 256 after).
//!
//! The first sweep spreads its counts over 4 interleaved histograms, summed only where the
//! walk reads them: neighbouring elements of a float row usually share their top digit, and a
//! single counter incremented back to back waits on its own previous store every time.
//! The search is branch-free per element (compaction writes every key and advances the write
//! position by the match bit), so its cost does not depend on the order of the data.
//!
//! # On a GPU warp
//! Radix select is how GPU libraries do top-k (`torch.topk`'s radix select, RAFT/cuVS's AIR
//! top-k): each digit is a histogram built with shared-memory atomics (one private histogram
//! per warp to limit contention, summed afterwards), the bin walk is a prefix sum over the
//! bins done by the block, and candidates are compacted with a ballot + prefix popcount, as in
//! the final selection here. It maps well to a block per row, less well to RTop-K's *one warp
//! per row*: 256 bins are 8 per lane, the atomics conflict on concentrated digits (the top digit
//! of float data has a handful of live bins), and each digit costs a synchronised scan, where
//! a bisection step (`bisect`) is a register count and a 5-step shuffle reduction. (AIR top-k
//! takes 11-bit digits, 3 passes instead of 4, trading bigger histograms for fewer passes.)

use crate::algorithm::{KeyBuffers, RowStats, Scratch, WorkCounters, grow};
use crate::order::{Element, KeyBits, Mode, keys_into};
use crate::select::select_with_kth_key;

/// Bits per digit.
pub const DIGIT_BITS: u32 = 8;
/// Bins of one histogram (`2^DIGIT_BITS`).
pub const BINS: usize = 1 << DIGIT_BITS;
/// Interleaved histograms of the first sweep (see the module docs).
const LANES: usize = 4;
/// Elements per block of the first sweep (16 KiB of row and keys: well inside L1).
const SWEEP_BLOCK: usize = 2048;

/// Shift of the top digit of a key of type `K`.
/// A digit value (`< 256`) as a key.
#[inline(always)]
fn digit<K: KeyBits>(d: u32) -> K {
    K::from_u64(u64::from(d))
}

const fn top_shift<K: KeyBits>() -> u32 {
    K::BITS - DIGIT_BITS
}

/// One histogram: a counter per digit value.
pub(crate) type Histogram = [u32; BINS];

/// MSD radix select with 8-bit digits: at most four histogram passes (two on 16-bit keys), then
/// one selection pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Radix;

/// What a search finds: everything [`select_with_kth_key`] needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KthKey<K = u32> {
    /// The k-th largest key of the row.
    pub key: K,
    /// How many keys of the row are strictly larger than [`KthKey::key`] (`< k`).
    pub above: usize,
    /// Digits histogrammed (1 to 4 on 32-bit keys, 1 to 2 on 16-bit keys).
    pub passes: u32,
    /// Data moved by the search over `keys` (the first histogram sweep included; see
    /// [`WorkCounters`]). Its passes are sweeps over `keys`.
    pub work: WorkCounters,
}

/// Where the k-th key falls in one histogram (shared with `bucket`, whose walk is the same).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bin {
    /// The digit (bin) value.
    pub(crate) digit: u32,
    /// Candidates in higher bins (all selected).
    pub(crate) higher: usize,
    /// Candidates in this bin.
    pub(crate) count: usize,
}

/// Bins per group of the two-level walk in [`find_bin`].
const GROUP: usize = 16;

/// The bin holding the `k`-th largest candidate, counted over the sum of `lanes`.
///
/// Walking 256 bins one by one costs more than a small candidate set itself, so the walk
/// goes down by groups of 16 bins first, then bin by bin inside the group that reaches `k`
/// (the CPU form of a two-level prefix scan). The lanes hold at least `k` candidates, so the
/// walk ends in a bin; the lowest bin is the fallback without a test, which keeps the
/// function total.
#[inline(always)]
pub(crate) fn find_bin(lanes: &[Histogram], k: usize) -> Bin {
    // Within one lane every sum is at most the row width, which fits a `u32`.
    let group_count = |g: usize| -> usize {
        lanes.iter().map(|h| h[g * GROUP..][..GROUP].iter().sum::<u32>() as usize).sum()
    };
    let bin_count = |d: usize| -> usize { lanes.iter().map(|h| h[d] as usize).sum() };
    let mut higher = 0;
    let mut group = BINS / GROUP - 1;
    while group > 0 {
        let count = group_count(group);
        if higher + count >= k {
            break;
        }
        higher += count;
        group -= 1;
    }
    let first = group * GROUP;
    for digit in (first + 1..first + GROUP).rev() {
        let count = bin_count(digit);
        if higher + count >= k {
            return Bin { digit: digit as u32, higher, count };
        }
        higher += count;
    }
    Bin { digit: first as u32, higher, count: bin_count(first) }
}

/// The first sweep: writes the keys of `row` and histograms their top digit into `lanes`
/// (zeroed by the caller; an output parameter rather than a returned 4 KiB array, which would
/// be copied once per row).
///
/// Block by block, so that each block's keys are histogrammed while they are still in the L1
/// cache: one sweep over memory, yet the key transform stays a separate loop that vectorises
/// ([`keys_into`]) — inside the histogram loop it would be scalar.
fn keys_and_top_histogram<E: Element>(
    row: &[E],
    mode: Mode,
    keys: &mut [E::Key],
    lanes: &mut [Histogram; LANES],
) {
    let top = top_shift::<E::Key>();
    for (vs, ks) in row.chunks(SWEEP_BLOCK).zip(keys.chunks_mut(SWEEP_BLOCK)) {
        keys_into(vs, mode, ks);
        let mut chunks = ks.chunks_exact(LANES);
        for quad in &mut chunks {
            for (&x, lane) in quad.iter().zip(lanes.iter_mut()) {
                lane[(x >> top).low_byte()] += 1;
            }
        }
        for &x in chunks.remainder() {
            lanes[0][(x >> top).low_byte()] += 1;
        }
    }
}

/// Histogram of the digit at `shift` over `cands`, into `hist`.
fn histogram<'h, K: KeyBits>(cands: &[K], shift: u32, hist: &'h mut Histogram) -> &'h [Histogram] {
    hist.fill(0);
    for &x in cands {
        hist[(x >> shift).low_byte()] += 1;
    }
    std::slice::from_ref(hist)
}

/// Copies the keys of `src` whose bits from `shift` up equal `want` to the front of `dst`
/// (same length as `src`) and returns how many there are.
fn compact_into<K: KeyBits>(src: &[K], dst: &mut [K], shift: u32, want: K) -> usize {
    let mut n = 0;
    for &x in src {
        // Write unconditionally, advance only on a match: no branch to mispredict.
        // `n <= i < src.len() == dst.len()` here, so the index is in bounds.
        dst[n] = x;
        n += usize::from(x >> shift == want);
    }
    n
}

/// [`compact_into`] within one buffer: the write position never passes the read position.
fn compact_in_place<K: KeyBits>(buf: &mut [K], shift: u32, want: K) -> usize {
    let mut n = 0;
    for i in 0..buf.len() {
        let x = buf[i];
        buf[n] = x;
        n += usize::from(x >> shift == want);
    }
    n
}

/// The k-th key when the whole bin starting at key `lo` is selected: its smallest key.
/// `src` holds the current candidates (keys below `lo` among them are ignored; those above
/// are already counted in `above`), `count` is the bin's size.
fn whole_bin<K: KeyBits>(
    src: &[K],
    lo: K,
    above: usize,
    count: usize,
    passes: u32,
    mut work: WorkCounters,
) -> KthKey<K> {
    // Keys below `lo` wrap around to offsets above every key at or above `lo` (in the key's
    // width), so a plain minimum (which vectorises) finds the smallest key of the bin.
    let offset = src.iter().map(|&x| x.wrapping_sub(lo)).min().unwrap_or_default();
    let kth = K::from_u64(lo.to_u64().wrapping_add(offset.to_u64()));
    let ties = src.iter().map(|&x| usize::from(x == kth)).sum::<usize>();
    // Two reads of `src`: the minimum, then the ties.
    work.read(2 * src.len());
    KthKey { key: kth, above: above + count - ties, passes, work }
}

/// Finds the k-th largest of `keys` (`1 <= k <= keys.len()`), given the histogram of their
/// top digit. `cands` (at least `keys.len()` long) is work space for the candidate keys.
fn search<K: KeyBits>(keys: &[K], top: &[Histogram], k: usize, cands: &mut [K]) -> KthKey<K> {
    let top_shift = top_shift::<K>();
    let bin = find_bin(top, k);
    let mut above = bin.higher;
    let mut k_left = k - bin.higher;
    let mut lo = digit::<K>(bin.digit) << top_shift;
    // The top digit's histogram was one sweep over `keys`.
    let mut work = WorkCounters::default();
    work.sweep(keys.len());
    if bin.count == k_left {
        // `whole_bin` sweeps the keys twice.
        work.passes += 2;
        return whole_bin(keys, lo, above, bin.count, 1, work);
    }
    let mut n = compact_into(keys, &mut cands[..keys.len()], top_shift, digit(bin.digit));
    work.sweep(keys.len());
    work.write(n);
    let mut passes = 1;
    let mut hist = [0; BINS];
    // The middle digits (two of a 32-bit key, none of a 16-bit one): narrow, and stop if the
    // k-th bin is taken whole.
    for shift in (1..K::BITS / DIGIT_BITS - 1).rev().map(|d| d * DIGIT_BITS) {
        let live = &mut cands[..n];
        let bin = find_bin(histogram(live, shift, &mut hist), k_left);
        work.read(live.len());
        passes += 1;
        above += bin.higher;
        k_left -= bin.higher;
        lo = lo | digit::<K>(bin.digit) << shift;
        if bin.count == k_left {
            return whole_bin(live, lo, above, bin.count, passes, work);
        }
        n = compact_in_place(live, shift, lo >> shift);
        work.read(live.len());
        work.write(n);
    }
    // The last digit: every candidate in the k-th bin is the k-th key itself.
    let bin = find_bin(histogram(&cands[..n], 0, &mut hist), k_left);
    work.read(n);
    KthKey { key: lo | digit(bin.digit), above: above + bin.higher, passes: passes + 1, work }
}

/// The k-th largest key of `keys` and the count above it, by radix select
/// (`1 <= k <= keys.len()`); the candidate buffer of `K` in `scratch` holds the candidates
/// (`keys` must not be that buffer).
pub fn kth_key<K: KeyBits>(keys: &[K], k: usize, scratch: &mut Scratch) -> KthKey<K> {
    let mut top = [0; BINS];
    histogram(keys, top_shift::<K>(), &mut top);
    let cands = grow(&mut K::buffers(scratch).cands, keys.len());
    search(keys, std::slice::from_ref(&top), k, cands)
}

crate::row_select!(Radix, "radix", 64, |_, row, k, mode, scratch, out| {
    let KeyBuffers { keys, cands } = E::Key::buffers(scratch);
    let keys = grow(keys, row.len());
    let mut top = [[0; BINS]; LANES];
    keys_and_top_histogram(row, mode, keys, &mut top);
    let kth = search(keys, &top, k, grow(cands, row.len()));
    select_with_kth_key(keys, kth.key, kth.above, k, out);
    // The search's first sweep computed the keys from the row; the selection reads the
    // keys (the row again) up to the chunk that completes k.
    let mut work = kth.work;
    work.select_pass(out, row.len());
    RowStats::with_work(work)
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::{Options, topk_row};
    use crate::oracle::canonical_indices;
    use crate::order::{key_largest, key_smallest};
    use crate::test_rows::{
        MODES, assert_one_scratch, assert_some_k, lcg, odd_width_rows, random_rows, special_row,
        unsorted, widths_for_one_scratch,
    };

    fn run(row: &[f32], k: usize, mode: Mode) -> Vec<u32> {
        unsorted(&Radix, row, k, mode)
    }

    /// Every k from 1 to M, both modes, against the oracle.
    fn check_all_k(row: &[f32]) {
        crate::test_rows::assert_all_k(&Radix, row);
    }

    /// The search alone, on the keys of `row`.
    fn search_row(row: &[f32], k: usize, mode: Mode) -> KthKey {
        let mut keys = vec![0; row.len()];
        keys_into(row, mode, &mut keys);
        kth_key(&keys, k, &mut Scratch::default())
    }

    #[test]
    fn work_counts_each_digit_pass() {
        let work =
            |row: &[f32], k| topk_row(&Radix, row, k, Options::default()).unwrap().stats.work;
        // The top bin is taken whole: the histogram sweep, two sweeps for its minimum and
        // ties, then the selection pass (both rows fit one chunk of 32).
        let w = work(&[1.0, 3.0, 1.0, 2.0, 1.0], 2);
        assert_eq!((w.elements_read, w.elements_written, w.passes), (5 + 10 + 5, 2, 4));
        // Three keys sharing three digits: histogram and compaction sweeps (3 stored), two
        // middle digits (histogram read + compaction read, 3 stored each), the last digit's
        // histogram, then the selection pass.
        let w = work(&[1.0, f32::from_bits(0x3f80_0001), 1.0], 2);
        assert_eq!(w.elements_read, 3 + 3 + 2 * (3 + 3) + 3 + 3);
        assert_eq!(w.elements_written, 3 + 3 + 3 + 2);
        assert_eq!(w.passes, 3);
    }

    #[test]
    fn hand_checked_rows() {
        let row = [0.0, 5.0, 1.0, 8.0, 2.0];
        assert_eq!(run(&row, 2, Mode::Largest), vec![1, 3]);
        assert_eq!(run(&row, 2, Mode::Smallest), vec![0, 2]);
        assert_eq!(run(&row, 1, Mode::Largest), vec![3]);
        assert_eq!(run(&row, 5, Mode::Smallest), vec![0, 1, 2, 3, 4]);
        // Ties at the k-th value go to the lower indices.
        assert_eq!(run(&[1.0, 3.0, 3.0, 3.0, 0.0, 3.0], 2, Mode::Largest), vec![1, 2]);
        // NaN above +inf; -0.0 ties with +0.0.
        let row = [0.5, f32::NAN, 2.0, f32::INFINITY, -0.0, 0.0];
        assert_eq!(run(&row, 2, Mode::Largest), vec![1, 3]);
        assert_eq!(run(&row, 2, Mode::Smallest), vec![4, 5]);
    }

    #[test]
    fn search_reports_the_kth_key_and_the_count_above() {
        let row = [1.0, 3.0, 3.0, 7.0, 0.0, 3.0];
        let kth = search_row(&row, 3, Mode::Largest);
        assert_eq!(kth.key, key_largest(3.0));
        assert_eq!(kth.above, 1);
        // The four digits of 1.0 and 1.0 + ulp differ only in the last one.
        let row = [1.0, f32::from_bits(0x3f80_0001), 1.0];
        let kth = search_row(&row, 2, Mode::Largest);
        assert_eq!((kth.key, kth.above, kth.passes), (key_largest(1.0), 1, 4));
        // k = M takes the lowest bin whole: one pass and a minimum.
        let kth = search_row(&[4.0, 2.0, 9.0, 2.0], 4, Mode::Largest);
        assert_eq!((kth.key, kth.above, kth.passes), (key_largest(2.0), 2, 1));
    }

    #[test]
    fn a_bin_selected_whole_stops_early() {
        // Top digits: 2.0 and 3.0 share one bin, 1.0 is in a lower one. k = 2 takes the
        // upper bin whole after the first digit; its minimum (2.0) is the k-th key.
        let row = [1.0, 3.0, 1.0, 2.0, 1.0];
        let kth = search_row(&row, 2, Mode::Largest);
        assert_eq!((kth.key, kth.above, kth.passes), (key_largest(2.0), 1, 1));
        assert_eq!(run(&row, 2, Mode::Largest), vec![1, 3]);
        // Same in the second digit: 1.5 and `b` share it (above 1.0's) and differ later.
        let b = f32::from_bits(0x3fc0_0100);
        let row = [1.0, b, 1.0, 1.5, 1.0, b];
        let kth = search_row(&row, 3, Mode::Largest);
        assert_eq!((kth.key, kth.above, kth.passes), (key_largest(1.5), 2, 2));
        check_all_k(&row);
    }

    #[test]
    fn all_equal_rows() {
        check_all_k(&[7.0; 33]);
        check_all_k(&[-0.0; 5]);
        check_all_k(&[f32::NAN; 6]);
        check_all_k(&[f32::NEG_INFINITY; 3]);
        let kth = search_row(&[2.5; 40], 17, Mode::Smallest);
        assert_eq!((kth.key, kth.above), (key_smallest(2.5), 0));
    }

    #[test]
    fn adjacent_floats() {
        let bases = [0x3f80_0000, 0x0000_0000, 0x0000_00ff, 0x7f7f_fffe, 0x8000_0001, 0xbf7f_ffff];
        for b in bases {
            let (a, c) = (f32::from_bits(b), f32::from_bits(b + 1));
            let row: Vec<f32> = (0..37).map(|i| if (i * 7) % 3 == 0 { a } else { c }).collect();
            check_all_k(&row);
            // Three neighbours across a digit boundary.
            let row: Vec<f32> = (0..45).map(|i| f32::from_bits(b.wrapping_add(i % 3))).collect();
            assert_some_k(&Radix, &row);
        }
    }

    #[test]
    fn exponentially_spread_rows() {
        // 2^e built from its bits: subnormal below 2^-126, normal from there up.
        let pow2 = |e: i32| {
            let bits = if e < -126 { 1u32 << (e + 149) } else { ((e + 127) as u32) << 23 };
            f32::from_bits(bits)
        };
        let mut row: Vec<f32> = (-149..=127).map(pow2).collect();
        row.extend((-149..=127).map(|e| -pow2(e)));
        assert_eq!((row[0], row[276]), (f32::from_bits(1), 2f32.powi(127)));
        // A fixed scramble, so that neighbours in the row are not neighbours in value.
        let n = row.len();
        let row: Vec<f32> = (0..n).map(|i| row[(i * 97) % n]).collect();
        check_all_k(&row);
    }

    #[test]
    fn special_values_in_both_modes() {
        let row = special_row();
        check_all_k(&row);
        check_all_k(&row[..1]);
        let twice: Vec<f32> = row.iter().chain(row.iter()).copied().collect();
        check_all_k(&twice);
    }

    #[test]
    fn widths_that_are_not_multiples_of_the_lanes_or_32() {
        for row in odd_width_rows() {
            check_all_k(&row);
        }
    }

    #[test]
    fn random_rows_match_the_oracle() {
        for row in random_rows(false) {
            assert_some_k(&Radix, &row);
        }
    }

    #[test]
    fn sixteen_bit_keys_take_at_most_two_digits() {
        use half::{bf16, f16};
        // 1.0 twice and its f16 neighbour, k = 2: the k-th key is tied, so every digit is
        // histogrammed — two of the 16-bit keys, four of the f32 keys of the same values.
        let row: Vec<f16> = [0x3C00, 0x3C01, 0x3C00].map(f16::from_bits).to_vec();
        let mut keys = vec![0u16; 3];
        keys_into(&row, Mode::Largest, &mut keys);
        let kth = kth_key(&keys, 2, &mut Scratch::default());
        assert_eq!((kth.key, kth.above, kth.passes), (row[0].key_largest(), 1, 2));
        let w = topk_row(&Radix, &row, 2, Options::default()).unwrap().stats.work;
        // Histogram and compaction sweeps (3 stored), the last digit's histogram, then the
        // selection pass: 12 reads where the f32 row of the same values reads 23.
        assert_eq!((w.elements_read, w.elements_written, w.passes), (3 + 3 + 3 + 3, 3 + 2, 3));
        let wide = row.map_f32();
        let w32 = topk_row(&Radix, &wide, 2, Options::default()).unwrap().stats.work;
        assert_eq!(w32.elements_read, 23);
        let mut keys = vec![0u32; 3];
        keys_into(&wide, Mode::Largest, &mut keys);
        assert_eq!(kth_key(&keys, 2, &mut Scratch::default()).passes, 4);
        // Any 16-bit row, any k: at most two digits, the canonical answer.
        let mut seed = 17;
        for m in [1, 7, 33, 300, 1000] {
            let h: Vec<f16> = (0..m).map(|_| f16::from_bits(lcg(&mut seed) as u16)).collect();
            let b: Vec<bf16> = (0..m).map(|_| bf16::from_bits(lcg(&mut seed) as u16)).collect();
            for mode in MODES {
                for k in
                    [1, 2, m / 3, m / 2, m - 1, m].into_iter().filter(|&k| (1..=m).contains(&k))
                {
                    let mut keys = vec![0u16; m];
                    keys_into(&h, mode, &mut keys);
                    assert!(kth_key(&keys, k, &mut Scratch::default()).passes <= 2);
                    keys_into(&b, mode, &mut keys);
                    assert!(kth_key(&keys, k, &mut Scratch::default()).passes <= 2);
                    let opts = Options { mode, sorted: false };
                    let got = topk_row(&Radix, &h, k, opts).unwrap().indices;
                    assert_eq!(got, canonical_indices(&h, k, mode), "f16 m={m} k={k}");
                    let got = topk_row(&Radix, &b, k, opts).unwrap().indices;
                    assert_eq!(got, canonical_indices(&b, k, mode), "bf16 m={m} k={k}");
                }
            }
        }
    }

    /// The f32 values of a 16-bit row.
    trait MapF32 {
        fn map_f32(&self) -> Vec<f32>;
    }

    impl<E: Element> MapF32 for Vec<E> {
        fn map_f32(&self) -> Vec<f32> {
            self.iter().map(|v| v.to_f32()).collect()
        }
    }

    #[test]
    fn scratch_is_reused_across_rows_of_different_widths() {
        assert_one_scratch(&Radix, &widths_for_one_scratch());
    }
}
