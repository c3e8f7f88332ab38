//! The sort-based oracle: the definition of the canonical top-k, written as plainly as possible.
//!
//! Sort every index by (key descending, index ascending) and keep the first k (SPEC §1). It is
//! O(M log M) and allocates; tests and checks compare every other algorithm against it.

use crate::order::{Element, KeyBits, Mode, rank};

/// The canonical top-k indices of `row`, in ascending index order. `k` is clamped to the row.
pub fn canonical_indices<E: Element>(row: &[E], k: usize, mode: Mode) -> Vec<u32> {
    let mut order = canonical_sorted_indices(row, k, mode);
    order.sort_unstable();
    order
}

/// The canonical top-k indices of `row` in sorted order (value order of `mode`, ties by index).
pub fn canonical_sorted_indices<E: Element>(row: &[E], k: usize, mode: Mode) -> Vec<u32> {
    let mut order: Vec<u32> = (0..row.len() as u32).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(rank(row[i as usize].key(mode).to_u32(), i)));
    order.truncate(k.min(row.len()));
    order
}

/// Recall of `got` against the canonical set `truth`: `|got ∩ truth| / |truth|` (1 when k = 0).
pub fn recall(got: &[u32], truth: &[u32]) -> f64 {
    if truth.is_empty() {
        return 1.0;
    }
    let mut t = truth.to_vec();
    t.sort_unstable();
    let hits = got.iter().filter(|i| t.binary_search(i).is_ok()).count();
    hits as f64 / truth.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_checked_rows() {
        let row = [0.5, f32::NAN, 2.0, 2.0, -1.0, f32::INFINITY];
        assert_eq!(canonical_indices(&row, 3, Mode::Largest), vec![1, 2, 5]);
        assert_eq!(canonical_sorted_indices(&row, 4, Mode::Largest), vec![1, 5, 2, 3]);
        assert_eq!(canonical_indices(&row, 2, Mode::Smallest), vec![0, 4]);
        assert_eq!(canonical_sorted_indices(&row, 6, Mode::Smallest), vec![4, 0, 2, 3, 5, 1]);
    }

    #[test]
    fn recall_counts_overlap() {
        assert_eq!(recall(&[1, 2, 3], &[3, 2, 9]), 2.0 / 3.0);
        assert_eq!(recall(&[], &[]), 1.0);
    }
}
