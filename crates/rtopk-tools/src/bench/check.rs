//! The exact answer every timed algorithm is checked against, and the check.

use ndarray::ArrayView2;
use topk_ref::oracle::{canonical_indices, recall};
use topk_ref::{Element, Heap, Mode, Options, TopK, topk_rows};

use crate::error::Error;
use rtopk::algorithm::{Selection, try_zeros};

/// Rows of heap's answer that are re-checked against the sort-based oracle.
const ORACLE_SAMPLE_ROWS: usize = 16;
/// Indices shown of a row that differs.
const PREVIEW: usize = 12;

/// The canonical top-k of every row of one input of `f32`, `f16` or `bf16` (largest mode,
/// ascending index order).
#[derive(Clone, Debug, PartialEq)]
pub struct Reference<E: Element = f32> {
    /// The answer.
    pub topk: TopK<E>,
    /// `true` when it is heap's answer (which passed the oracle sample), `false` when heap
    /// disagreed with the oracle and the whole reference is the oracle's.
    pub from_heap: bool,
}

impl<E: Element> Reference<E> {
    /// Heap's answer, after checking a sample of its rows against `topk_ref::oracle`; the
    /// oracle's (slow, but right) if heap fails that check.
    pub fn new(x: ArrayView2<'_, E>, k: usize) -> Result<Self, Error> {
        let heap = topk_rows(E::as_dyn(&Heap), x, k, Options::default())?;
        let n = x.nrows();
        let step = (n / ORACLE_SAMPLE_ROWS).max(1);
        let heap_ok = (0..n).step_by(step).all(|r| {
            let row = x.row(r).to_vec();
            heap.indices.row(r).to_vec() == canonical_indices(&row, k, Mode::Largest)
        });
        if heap_ok {
            return Ok(Self { topk: heap, from_heap: true });
        }
        Ok(Self { topk: oracle(x, k)?, from_heap: false })
    }
}

/// The sort-based oracle's answer for every row.
fn oracle<E: Element>(x: ArrayView2<'_, E>, k: usize) -> Result<TopK<E>, Error> {
    let n = x.nrows();
    let mut indices = try_zeros::<u32>(n, k, "reference indices")?;
    let mut values = try_zeros::<E>(n, k, "reference values")?;
    for (r, row) in x.rows().into_iter().enumerate() {
        let row = row.to_vec();
        for (j, i) in canonical_indices(&row, k, Mode::Largest).into_iter().enumerate() {
            indices[[r, j]] = i;
            values[[r, j]] = row[i as usize];
        }
    }
    Ok(TopK { values, indices, iterations: None })
}

/// Checks `out` against `reference`: identical indices and value bits for an exact
/// algorithm; for an approximate one (`exact == false`), k distinct ascending in-range indices
/// carrying the input's value bits. Returns the mean recall against the reference, or what is
/// wrong.
pub fn verify<E: Element>(
    exact: bool,
    x: ArrayView2<'_, E>,
    out: &Selection<E>,
    reference: &TopK<E>,
) -> Result<f64, String> {
    let out = &out.topk;
    let (n, m) = x.dim();
    let k = reference.indices.ncols();
    if out.indices.dim() != (n, k) || out.values.dim() != (n, k) {
        return Err(format!(
            "output shape {:?} / {:?}, expected ({n}, {k})",
            out.indices.dim(),
            out.values.dim()
        ));
    }
    let mut recall_sum = 0.0;
    for r in 0..n {
        let got = out.indices.row(r);
        let want = reference.indices.row(r);
        if exact {
            if got != want {
                return Err(format!(
                    "row {r}: indices {:?} differ from the reference {:?}",
                    preview(got.iter()),
                    preview(want.iter())
                ));
            }
        } else if let Some(w) = got.windows(2).into_iter().find(|w| w[0] >= w[1]) {
            return Err(format!(
                "row {r}: indices not strictly ascending ({} then {})",
                w[0], w[1]
            ));
        }
        for (&i, &v) in got.iter().zip(out.values.row(r)) {
            let Some(&xv) = x.row(r).get(i as usize) else {
                return Err(format!("row {r}: index {i} is out of range (M = {m})"));
            };
            if xv.to_bits() != v.to_bits() {
                let (v, xv) = (v.to_f32(), xv.to_f32());
                return Err(format!("row {r}: value at index {i} is {v}, the input holds {xv}"));
            }
        }
        if !exact {
            recall_sum += recall(&got.to_vec(), &want.to_vec());
        }
    }
    Ok(if exact || n == 0 { 1.0 } else { recall_sum / n as f64 })
}

/// The first few elements of a row, for messages.
fn preview<'a>(it: impl Iterator<Item = &'a u32>) -> Vec<u32> {
    it.take(PREVIEW).copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtopk::algorithm::Algorithm;
    use rtopk::rowwise::RowWise;
    use topk_ref::{Bisect, Family, bf16, f16};

    #[test]
    fn wrong_answers_are_caught() {
        let x = Family::Normal.matrix(40, 33, 7).unwrap();
        let reference = Reference::new(x.view(), 5).unwrap();
        assert!(reference.from_heap);
        assert_eq!(reference.topk, oracle(x.view(), 5).unwrap());
        let right = Selection { topk: reference.topk.clone(), ..Selection::default() };
        assert_eq!(verify(true, x.view(), &right, &reference.topk), Ok(1.0));
        // A different (still valid-looking) index set.
        let mut bad = right.clone();
        let i = bad.topk.indices[[3, 0]];
        bad.topk.indices[[3, 0]] = if i == 0 { 32 } else { 0 };
        bad.topk.indices.row_mut(3).as_slice_mut().unwrap().sort_unstable();
        assert!(verify(true, x.view(), &bad, &reference.topk).unwrap_err().contains("row 3"));
        // Right indices, wrong value bits.
        let mut bad = right.clone();
        bad.topk.values[[0, 0]] = -bad.topk.values[[0, 0]];
        assert!(verify(true, x.view(), &bad, &reference.topk).is_err());
        // An approximate algorithm must still return k distinct ascending indices.
        let es = RowWise::new(Bisect::early_stopping(2));
        let mut bad = es.select(x.view(), 5, Options::default()).unwrap();
        let r = verify(false, x.view(), &bad, &reference.topk).unwrap();
        assert!((0.0..=1.0).contains(&r));
        bad.topk.indices[[1, 1]] = bad.topk.indices[[1, 0]];
        assert!(verify(false, x.view(), &bad, &reference.topk).is_err());
        // A wrong shape.
        let short = RowWise::new(Heap).select(x.view(), 4, Options::default()).unwrap();
        assert!(verify(true, x.view(), &short, &reference.topk).unwrap_err().contains("shape"));
    }

    /// A 16-bit reference is heap's answer on the 16-bit rows (ties among rounded values
    /// included), and a value with the right number but the wrong bits (-0.0 for +0.0) is a
    /// wrong answer.
    fn sixteen_bit<E: rtopk::KernelElement>() {
        let x = Family::Ties.matrix(30, 45, 2).unwrap().mapv(|v| E::from_f32(v * 1e-3));
        let reference = Reference::new(x.view(), 9).unwrap();
        assert!(reference.from_heap);
        let want = oracle(x.view(), 9).unwrap();
        assert_eq!(reference.topk.indices, want.indices);
        let bits = |t: &TopK<E>| t.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&reference.topk), bits(&want));
        let algo = RowWise::generic(Bisect::exact());
        let out = (&algo as &dyn Algorithm).select_as(x.view(), 9, Options::default()).unwrap();
        assert_eq!(verify(true, x.view(), &out, &reference.topk), Ok(1.0));
        let zeros = ndarray::Array2::from_elem((2, 5), E::from_f32(0.0));
        let reference = Reference::new(zeros.view(), 2).unwrap();
        let mut bad = Selection { topk: reference.topk.clone(), ..Selection::default() };
        bad.topk.values[[1, 1]] = E::from_f32(-0.0);
        let e = verify(true, zeros.view(), &bad, &reference.topk).unwrap_err();
        assert!(e.contains("row 1: value at index 1"), "{e}");
    }

    #[test]
    fn sixteen_bit_references_and_checks() {
        sixteen_bit::<f16>();
        sixteen_bit::<bf16>();
    }
}
