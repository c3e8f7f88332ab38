//! The final selection pass shared by the threshold-based algorithms (bisect, radix, bucket).
//!
//! Once an algorithm knows a *strong* threshold (every key above it is selected) and a *band*
//! of keys that fill the remaining places by ascending index, one pass in index order writes
//! the result already in the default output order (ascending index, SPEC §1). This is the CPU
//! twin of RTop-K's ballot + popc selecting stage: the GPU computes the same "is selected and
//! how many selected before me" per chunk of 32 with a ballot and a prefix popcount.

/// Writes `k` indices into `out` in ascending order: every `i` with `keys[i] > strong_above`,
/// plus the first `k - strong_count` indices (by index) whose key lies in
/// `band_lo ..= strong_above`.
///
/// Preconditions (checked by the callers' construction, debug-asserted here):
/// `strong_count == #{i : keys[i] > strong_above} <= k` and the band holds at least
/// `k - strong_count` keys. Returns the number of indices written (always `k` when the
/// preconditions hold).
pub fn select_in_index_order(
    keys: &[u32],
    strong_above: u32,
    band_lo: u32,
    strong_count: usize,
    k: usize,
    out: &mut [u32],
) -> usize {
    debug_assert!(strong_count <= k && out.len() >= k);
    let mut band_left = k - strong_count;
    let mut written = 0;
    for (i, &key) in keys.iter().enumerate() {
        if written == k {
            break;
        }
        let strong = key > strong_above;
        let band = !strong && key >= band_lo && band_left > 0;
        if strong || band {
            out[written] = i as u32;
            written += 1;
            band_left -= usize::from(band);
        }
    }
    debug_assert_eq!(written, k, "selection preconditions violated");
    written
}

/// Selects the canonical top-k once the k-th key `kth` and `above = #{key > kth}` are known:
/// all keys above `kth`, then the lowest indices among keys equal to it.
pub fn select_with_kth_key(
    keys: &[u32],
    kth: u32,
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
        let keys = [5, 9, 5, 7, 9, 5, 1];
        let mut out = [0u32; 4];
        // k-th key 5, two keys above it (9, 9) and one above-but-not-9 (7) -> above = 3.
        assert_eq!(select_with_kth_key(&keys, 5, 3, 4, &mut out), 4);
        assert_eq!(out, [0, 1, 3, 4]);
    }

    #[test]
    fn band_fills_by_index_across_distinct_keys() {
        let keys = [3, 8, 4, 2, 6];
        let mut out = [0u32; 3];
        // strong: key > 6 (index 1); band 3..=6 takes the first two by index: 0 and 2.
        select_in_index_order(&keys, 6, 3, 1, 3, &mut out);
        assert_eq!(out, [0, 1, 2]);
    }
}
