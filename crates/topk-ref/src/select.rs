//! The final selection pass shared by the threshold-based algorithms (bisect, radix, bucket).
//!
//! Once an algorithm knows a *strong* threshold (every key above it is selected) and a *band*
//! of keys that fill the remaining places by ascending index, one pass in index order writes
//! the result already in the default output order (ascending index, docs/contract.md §1). This is the CPU
//! twin of RTop-K's ballot + popc selecting stage: the GPU computes the same "is selected and
//! how many selected before me" per chunk of 32 with a ballot and a prefix popcount.

use crate::order::KeyBits;

/// Lanes of one ballot: the selection walks the row in chunks of a warp's width.
const WARP: usize = 32;

/// Writes `k` indices into `out` in ascending order: every `i` with `keys[i] > strong_above`,
/// plus the first `k - strong_count` indices (by index) whose key lies in
/// `band_lo ..= strong_above`.
///
/// Preconditions (checked by the callers' construction, debug-asserted here):
/// `strong_count == #{i : keys[i] > strong_above} <= k` and the band holds at least
/// `k - strong_count` keys. Returns the number of indices written (always `k` when the
/// preconditions hold).
///
/// Each chunk of 32 keys becomes two "ballots" (bit masks): strong keys, and band keys cut
/// to the places still free — the CPU form of the GPU's ballot + popc prefix. Set bits are
/// then written out lowest first, so the output is in ascending index order.
pub fn select_in_index_order<K: KeyBits>(
    keys: &[K],
    strong_above: K,
    band_lo: K,
    strong_count: usize,
    k: usize,
    out: &mut [u32],
) -> usize {
    debug_assert!(strong_count <= k && out.len() >= k);
    let mut band_left = k - strong_count;
    let mut written = 0;
    for (c, chunk) in keys.chunks(WARP).enumerate() {
        let strong = ballot(chunk, |key| key > strong_above);
        let mut selected = strong;
        if band_left > 0 {
            let band = lowest_bits(ballot(chunk, |key| key >= band_lo) & !strong, band_left);
            band_left -= band.count_ones() as usize;
            selected |= band;
        }
        written = emit(selected, c * WARP, out, written, k);
        if written == k {
            break;
        }
    }
    debug_assert_eq!(written, k, "selection preconditions violated");
    written
}

/// Bit `j` set when `pred(chunk[j])` — a warp ballot over one chunk of at most 32 keys.
#[inline(always)]
fn ballot<K: KeyBits>(chunk: &[K], pred: impl Fn(K) -> bool) -> u32 {
    match <&[K; WARP]>::try_from(chunk) {
        // A fixed-width chunk unrolls into vector compares, shifts and an OR reduction.
        Ok(full) => {
            full.iter().enumerate().fold(0u32, |m, (j, &key)| m | (u32::from(pred(key)) << j))
        }
        Err(_) => {
            chunk.iter().enumerate().fold(0u32, |m, (j, &key)| m | (u32::from(pred(key)) << j))
        }
    }
}

/// The `n` lowest set bits of `mask` (all of them when it has no more than `n`).
#[inline]
fn lowest_bits(mut mask: u32, n: usize) -> u32 {
    if mask.count_ones() as usize <= n {
        return mask;
    }
    let mut kept = 0;
    for _ in 0..n {
        let low = mask & mask.wrapping_neg();
        kept |= low;
        mask ^= low;
    }
    kept
}

/// Appends `base + j` for each set bit `j` of `mask`, lowest first, until `k` are written.
#[inline(always)]
fn emit(mut mask: u32, base: usize, out: &mut [u32], mut written: usize, k: usize) -> usize {
    while mask != 0 && written < k {
        out[written] = (base + mask.trailing_zeros() as usize) as u32;
        written += 1;
        mask &= mask - 1;
    }
    written
}

/// Selects the canonical top-k once the k-th key `kth` and `above = #{key > kth}` are known:
/// all keys above `kth`, then the lowest indices among keys equal to it.
pub fn select_with_kth_key<K: KeyBits>(
    keys: &[K],
    kth: K,
    above: usize,
    k: usize,
    out: &mut [u32],
) -> usize {
    select_in_index_order(keys, kth, kth, above, k, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strong_then_band_in_index_order() {
        let keys = [5u32, 9, 5, 7, 9, 5, 1];
        let mut out = [0u32; 4];
        // k-th key 5, two keys above it (9, 9) and one above-but-not-9 (7) -> above = 3.
        assert_eq!(select_with_kth_key(&keys, 5, 3, 4, &mut out), 4);
        assert_eq!(out, [0, 1, 3, 4]);
    }

    #[test]
    fn chunks_past_32_keep_index_order_and_budget() {
        let keys: Vec<u32> = (0..100).map(|i| if i % 7 == 0 { 9 } else { 4 + (i % 3) }).collect();
        let mut out = vec![0u32; 20];
        let strong = keys.iter().filter(|&&x| x > 8).count();
        select_in_index_order(&keys, 8, 5, strong, 20, &mut out);
        let want: Vec<u32> = (0..100u32)
            .filter(|&i| keys[i as usize] >= 5)
            .scan(20 - strong, |left, i| {
                let take = keys[i as usize] > 8 || *left > 0;
                if keys[i as usize] <= 8 && take {
                    *left -= 1;
                }
                Some((i, take))
            })
            .filter_map(|(i, take)| take.then_some(i))
            .take(20)
            .collect();
        assert_eq!(out, want);
        assert_eq!(lowest_bits(0b1011_0110, 2), 0b0000_0110);
        assert_eq!(lowest_bits(0b1, 5), 0b1);
    }

    #[test]
    fn band_fills_by_index_across_distinct_keys() {
        let keys = [3u32, 8, 4, 2, 6];
        let mut out = [0u32; 3];
        // strong: key > 6 (index 1); band 3..=6 takes the first two by index: 0 and 2.
        select_in_index_order(&keys, 6, 3, 1, 3, &mut out);
        assert_eq!(out, [0, 1, 2]);
    }
}
