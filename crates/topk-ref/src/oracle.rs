//! The sort-based oracle: the definition of the canonical top-k, written as plainly as possible.
//!
//! Sort every index by (key descending, index ascending) and keep the first k (docs/contract.md §1). It is
//! O(M log M) and allocates; tests and checks compare every other algorithm against it.

use ndarray::{Array1, Array2, ArrayView2};

use crate::algorithm::WorkCounters;
use crate::driver::Options;
use crate::error::TopKError;
use crate::order::{Element, KeyBits, Mode};
use crate::ragged::{PAD_INDEX, RaggedTopK, Rows};

/// The canonical top-k indices of `row`, in ascending index order. `k` is clamped to the row.
pub fn canonical_indices<E: Element>(row: &[E], k: usize, mode: Mode) -> Vec<u32> {
    let mut order = canonical_sorted_indices(row, k, mode);
    order.sort_unstable();
    order
}

/// The canonical top-k indices of `row` in sorted order (value order of `mode`, ties by index).
pub fn canonical_sorted_indices<E: Element>(row: &[E], k: usize, mode: Mode) -> Vec<u32> {
    let mut order: Vec<u32> = (0..row.len() as u32).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(row[i as usize].key(mode).rank(i)));
    order.truncate(k.min(row.len()));
    order
}

/// The canonical answer to a ragged request (docs/contract.md §5), by the definition: row `i`
/// is the sorted canonical top-`min(k[i], lengths[i])` of `x[i, ..lengths[i]]` (put back in
/// index order unless `opts.sorted`), padded with [`PAD_INDEX`] and zeros to the width K; its
/// threshold is the last entry of the sorted selection as `f32` (NaN when it is empty). Always
/// returns the threshold; never iteration counts (its work counters are zero). Errors as
/// [`crate::ragged::topk_ragged`].
pub fn canonical_ragged<E: Element>(
    x: ArrayView2<'_, E>,
    rows: &Rows<'_>,
    opts: Options,
) -> Result<RaggedTopK<E>, TopKError> {
    let (n, m) = x.dim();
    let width = rows.check(n, m)?;
    let mut values = Array2::from_elem((n, width), E::default());
    let mut indices = Array2::from_elem((n, width), PAD_INDEX);
    let mut threshold = Array1::from_elem(n, f32::NAN);
    for r in 0..n {
        let row: Vec<E> = x.row(r).iter().take(rows.length(r, m)).copied().collect();
        let mut chosen = canonical_sorted_indices(&row, rows.selected(r, m), opts.mode);
        if let Some(&last) = chosen.last() {
            threshold[r] = row[last as usize].to_f32();
        }
        if !opts.sorted {
            chosen.sort_unstable();
        }
        for (c, &i) in chosen.iter().enumerate() {
            indices[[r, c]] = i;
            values[[r, c]] = row[i as usize];
        }
    }
    let work = WorkCounters::default();
    Ok(RaggedTopK { values, indices, iterations: None, threshold: Some(threshold), work })
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
