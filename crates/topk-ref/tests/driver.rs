//! The row-wise driver: shapes, errors, strided views, parallel determinism.

use ndarray::{Array2, ShapeBuilder};
use topk_ref::oracle::canonical_indices;
use topk_ref::registry::{ALGORITHM_NAMES, by_name};
use topk_ref::{Bisect, Mode, Options, TopKError, topk_row, topk_rows};

/// Results compared bit for bit (values hold NaN, which `==` would never match).
fn assert_same(a: &topk_ref::TopK, b: &topk_ref::TopK) {
    assert_eq!(a.indices, b.indices);
    assert_eq!(a.iterations, b.iterations);
    let bits = |t: &topk_ref::TopK| t.values.mapv(f32::to_bits);
    assert_eq!(bits(a), bits(b));
}

/// A deterministic matrix with ties, NaN and infinities sprinkled in.
fn matrix(n: usize, m: usize) -> Array2<f32> {
    Array2::from_shape_fn((n, m), |(r, c)| {
        let h = (r as u64 * 1_000_003 + c as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40;
        match h % 97 {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            3 => -0.0,
            4..=20 => (h % 5) as f32,
            _ => (h as f32) * 1.0e-3 - 8000.0,
        }
    })
}

#[test]
fn every_registered_algorithm_matches_the_oracle_row_by_row() {
    let x = matrix(300, 133);
    for name in ALGORITHM_NAMES {
        let algo = by_name(name).unwrap();
        for mode in [Mode::Largest, Mode::Smallest] {
            let out =
                topk_rows(algo.as_ref(), x.view(), 17, Options { mode, sorted: false }).unwrap();
            for (r, row) in x.rows().into_iter().enumerate() {
                let want = canonical_indices(row.as_slice().unwrap(), 17, mode);
                assert_eq!(out.indices.row(r).to_vec(), want, "{name} row {r} {mode:?}");
            }
        }
    }
}

#[test]
fn strided_views_give_the_same_answer_as_contiguous_ones() {
    let x = matrix(64, 200);
    let mut f = Array2::<f32>::zeros((64, 200).f());
    f.assign(&x);
    assert!(f.row(0).as_slice().is_none(), "the Fortran-order copy has strided rows");
    let opts = Options { mode: Mode::Largest, sorted: true };
    let a = topk_rows(&Bisect::exact(), x.view(), 9, opts).unwrap();
    let b = topk_rows(&Bisect::exact(), f.view(), 9, opts).unwrap();
    assert_same(&a, &b);
}

#[test]
fn values_are_the_input_bits() {
    let x = matrix(50, 97);
    let out = topk_rows(&Bisect::exact(), x.view(), 97, Options::default()).unwrap();
    for r in 0..50 {
        for c in 0..97 {
            let i = out.indices[[r, c]] as usize;
            assert_eq!(out.values[[r, c]].to_bits(), x[[r, i]].to_bits());
        }
    }
}

#[test]
fn iterations_are_reported_only_by_bisect() {
    let x = matrix(10, 64);
    let b = topk_rows(&Bisect::exact(), x.view(), 5, Options::default()).unwrap();
    assert_eq!(b.iterations.as_ref().map(|it| it.len()), Some(10));
    let h = topk_rows(by_name("heap").unwrap().as_ref(), x.view(), 5, Options::default());
    assert!(h.unwrap().iterations.is_none());
}

#[test]
fn zero_rows_and_zero_k_give_empty_outputs() {
    let empty = Array2::<f32>::zeros((0, 8));
    let out = topk_rows(&Bisect::exact(), empty.view(), 3, Options::default()).unwrap();
    assert_eq!(out.indices.dim(), (0, 3));
    let x = matrix(4, 8);
    let out = topk_rows(&Bisect::exact(), x.view(), 0, Options::default()).unwrap();
    assert_eq!(out.values.dim(), (4, 0));
}

#[test]
fn bad_shapes_are_typed_errors() {
    let x = matrix(2, 3);
    let err = topk_rows(&Bisect::exact(), x.view(), 4, Options::default()).unwrap_err();
    assert_eq!(err, TopKError::KTooLarge { k: 4, m: 3 });
    assert_eq!(err.to_string(), "k = 4 is larger than the row width M = 3");
    let w0 = Array2::<f32>::zeros((5, 0));
    let err = topk_rows(&Bisect::exact(), w0.view(), 0, Options::default()).unwrap_err();
    assert_eq!(err, TopKError::EmptyRows);
    assert_eq!(
        topk_row(&Bisect::exact(), &[] as &[f32], 0, Options::default()),
        Err(TopKError::EmptyRows)
    );
}

#[test]
fn parallel_runs_are_deterministic() {
    let x = matrix(5000, 65);
    let a = topk_rows(&Bisect::exact(), x.view(), 7, Options::default()).unwrap();
    let b = topk_rows(&Bisect::exact(), x.view(), 7, Options::default()).unwrap();
    assert_same(&a, &b);
}
