//! Rows of their own length and k on the radix select (docs/kernel.md, "Radix rows"): where
//! the default gives plain rows of the shape the radix select, ragged rows take it too, and
//! the `cuda` kernel gives the simulated kernel's answer bit for bit — indices (padding -1),
//! value bits (padding 0) and thresholds — and the oracle's, in f32, f16 and bf16, both modes,
//! sorted or not, on hostile rows (NaN of both signs and payloads, ±inf, ±0, subnormals, heavy
//! ties; NaN past the lengths); lengths 0, 1, M and ones that end inside a block's part; k 0,
//! 1, above the length and the width. Hints change no answer (the radix select reads none).
//! Needs a CUDA GPU: `cargo test -p rtopk --release --test gpu_ragged -- --ignored radix`.

use ndarray::{Array2, ArrayView2};
use rtopk::{K, KernelElement, Mode, Options, Request, bf16, f16, select};
use topk_ref::Rows;
use topk_ref::oracle::canonical_ragged;

use super::{bits, hostile, same};

/// Lengths and k for `n` rows of `m`: a row ending inside a part, one of none, a whole row,
/// one of one element, one of half the row (k above the length on the one-element row, k 0
/// on the empty one and on one other).
fn radix_shape(n: usize, m: usize, kmax: usize) -> (Vec<usize>, Vec<usize>) {
    let lengths = [m / 4 + 7, 0, m, 1, m / 2 + 3];
    let ks = [kmax, kmax, kmax / 2 + 1, 2, 0];
    let lengths: Vec<usize> = (0..n).map(|r| lengths[r % 5]).collect();
    let ks: Vec<usize> = (0..n).map(|r| if r == 0 { kmax } else { ks[r % 5] }).collect();
    (lengths, ks)
}

/// Whether the default program of the ragged request `(n, m, kmax)` of `E` on this GPU
/// starts with a radix step.
fn takes_radix<E: KernelElement>(n: usize, m: usize, kmax: usize) -> bool {
    let p = super::ragged_program((n, m, kmax), E::ELEM, false);
    p.steps[0].name.name().starts_with("radix")
}

/// cuda against sim (where `simulate`) and the oracle, both modes, sorted and not, and with
/// hints (each row's threshold, nudged): the same answer.
fn check_radix<E: KernelElement>(x: ArrayView2<'_, E>, kmax: usize, simulate: bool) {
    let (n, m) = x.dim();
    assert!(takes_radix::<E>(n, m, kmax), "{} N={n} M={m} K={kmax}: a radix select", E::NAME);
    let (lengths, ks) = radix_shape(n, m, kmax);
    for (smallest, sorted) in [(false, false), (true, false), (false, true), (true, true)] {
        let opts = Options { mode: Mode::from_smallest(smallest), sorted };
        let what = format!("{} N={n} M={m} K={kmax} smallest={smallest} sorted={sorted}", E::NAME);
        let run = |algo: &str, hint: Option<Vec<f32>>| {
            let b = Request::builder(algo).k_of(K::PerRow(ks.clone())).lengths(lengths.clone());
            let b = b.options(opts).threshold(true);
            let b = match hint {
                Some(h) => b.hint(h),
                None => b,
            };
            select(x, &b.build().unwrap()).unwrap()
        };
        let cuda = run("cuda", None);
        let rows = Rows::per_row_k(&ks).with_lengths(&lengths);
        let want = canonical_ragged(x, &rows, opts).unwrap();
        assert_eq!(cuda.topk.indices, want.indices, "{what}: oracle");
        assert_eq!(bits(&cuda.topk.values), bits(&want.values), "{what}: oracle values");
        if simulate {
            same(&cuda, &run("sim", None), &format!("{what}: sim"));
        }
        let t = cuda.threshold.as_ref().expect("thresholds asked for");
        let h: Vec<f32> = t.iter().map(|&v| if v.is_nan() { 0.5 } else { v * 1.001 }).collect();
        same(&run("cuda", Some(h)), &cuda, &format!("{what}: hinted"));
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn ragged_radix_rows_on_the_gpu_equal_the_simulator() {
    // one row of 2^20 at k = 2048 (the indexer's), a small selection of three odd rows at
    // k = 600, nine rows at k = 2048 (the sample on an H100 or H200), one f32 row of 2^24
    for (i, &(n, m, k, simulate)) in [
        (1, 1 << 20, 2048, true),
        (3, (1 << 20) + 3, 600, true),
        (9, 1 << 20, 2048, false),
        (1, 1 << 24, 4096, false),
    ]
    .iter()
    .enumerate()
    {
        let x = Array2::from_shape_vec((n, m), hostile(n, m, 70 + i as u64)).unwrap();
        check_radix(x.view(), k, simulate);
    }
    // 16-bit rows: a small selection of three odd rows at k = 1024
    let (n, m, k) = (3, (1 << 20) + 5, 1024);
    let v = hostile(n, m, 80);
    let h = Array2::from_shape_vec((n, m), v.iter().map(|&f| f16::from_f32(f)).collect());
    check_radix(h.unwrap().view(), k, true);
    let b = Array2::from_shape_vec((n, m), v.iter().map(|&f| bf16::from_f32(f)).collect());
    check_radix(b.unwrap().view(), k, true);
}
