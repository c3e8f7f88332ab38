//! Rows of their own length and k per row (docs/contract.md §5) on the GPU: the `cuda` kernel
//! gives the simulated kernel's answer bit for bit — indices (padding), value bits (padding
//! 0), iteration counts and thresholds — and the oracle's, on every whole-row family (quarter,
//! half and whole-warp rows, narrowing and not, block rows, block rows that narrow, sorted
//! output), in f32, f16 and bf16, on rows built to break it (NaN of both signs and payloads,
//! ±inf, ±0, subnormals, heavy ties; lengths 0 and M, k 0 and above the length, NaN past the
//! lengths). Needs a CUDA GPU: `cargo test -p rtopk --release --test gpu_ragged -- --ignored`.

use ndarray::{Array1, Array2, ArrayView2};
use rtopk::{Element, Float, K, Mode, Options, Request, Selection, bf16, f16, select};
use topk_ref::oracle::canonical_ragged;
use topk_ref::{KeyBits, Rows};

/// A deterministic row-major `(n, m)` matrix of hostile values: ties, specials, subnormals.
fn hostile(n: usize, m: usize, seed: u64) -> Vec<f32> {
    let specials = [
        f32::NAN,
        f32::from_bits(0xFFC0_1234),
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        f32::from_bits(1),
        f32::from_bits(0x8000_0003),
        f32::MAX,
    ];
    let mut s = seed;
    (0..n * m)
        .map(|_| {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let r = (s >> 33) as u32;
            match r % 16 {
                0 => specials[(r as usize / 16) % specials.len()],
                1..=5 => ((r / 16) % 7) as f32, // heavy ties
                _ => ((r / 16) as f32 / 65536.0) - 16000.0,
            }
        })
        .collect()
}

/// Per-row lengths and k for `n` rows of `m`: 0, M, k above the length, k 0.
fn shape(n: usize, m: usize, kmax: usize, seed: u64) -> (Vec<usize>, Vec<usize>) {
    let mut s = seed;
    let mut next = |bound: usize| {
        s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        ((s >> 33) as usize) % (bound + 1)
    };
    let lengths: Vec<usize> = (0..n)
        .map(|r| match r % 5 {
            0 => m,
            1 => 0,
            _ => next(m),
        })
        .collect();
    let ks: Vec<usize> = (0..n)
        .map(|r| match r % 4 {
            0 => kmax,
            1 => 0,
            2 => (lengths[r] + 1).min(kmax),
            _ => next(kmax),
        })
        .collect();
    (lengths, ks)
}

fn request(algo: &str, lengths: &[usize], ks: &[usize], opts: Options, counts: bool) -> Request {
    Request::builder(algo)
        .k_of(K::PerRow(ks.to_vec()))
        .lengths(lengths.to_vec())
        .options(opts)
        .threshold(true)
        .iterations(counts)
        .build()
        .unwrap()
}

fn bits<E: Element>(a: &Array2<E>) -> Vec<u64> {
    a.iter().map(|v| v.to_bits().to_u64()).collect()
}

fn tbits(t: &Option<Array1<f32>>) -> Option<Vec<u32>> {
    t.as_ref().map(|t| t.iter().map(|v| v.to_bits()).collect())
}

fn same<E: Element>(got: &Selection<E>, want: &Selection<E>, what: &str) {
    assert_eq!(got.topk.indices, want.topk.indices, "{what}: indices");
    assert_eq!(bits(&got.topk.values), bits(&want.topk.values), "{what}: values");
    assert_eq!(got.topk.iterations, want.topk.iterations, "{what}: iterations");
    assert_eq!(tbits(&got.threshold), tbits(&want.threshold), "{what}: thresholds");
}

/// cuda against sim (counts included) and the oracle, both modes, sorted and not.
fn check<E: Float>(x: ArrayView2<'_, E>, kmax: usize, seed: u64) {
    let (n, m) = x.dim();
    let (lengths, ks) = shape(n, m, kmax, seed);
    for (smallest, sorted) in [(false, false), (true, false), (false, true), (true, true)] {
        let opts = Options { mode: Mode::from_smallest(smallest), sorted };
        let what = format!("{} N={n} M={m} K={kmax} smallest={smallest} sorted={sorted}", E::NAME);
        let cuda = select(x, &request("cuda", &lengths, &ks, opts, true)).unwrap();
        let sim = select(x, &request("sim", &lengths, &ks, opts, true)).unwrap();
        same(&cuda, &sim, &what);
        let rows = Rows::per_row_k(&ks).with_lengths(&lengths);
        let want = canonical_ragged(x, &rows, opts).unwrap();
        assert_eq!(cuda.topk.indices, want.indices, "{what}: oracle");
        let uncounted = select(x, &request("cuda", &lengths, &ks, opts, false)).unwrap();
        assert_eq!(uncounted.topk.indices, want.indices, "{what}: without counts");
    }
}

/// Shapes of every whole-row family: many short rows (quarter, half rows), whole-warp rows
/// that narrow, block rows (narrowing and past their registers).
const SHAPES: [(usize, usize, usize); 7] = [
    (3000, 100, 20),
    (700, 300, 64),
    (200, 700, 100),
    (64, 2000, 300),
    (20, 5000, 100),
    (9, 20_000, 600),
    (3, 70_000, 2048),
];

#[test]
#[ignore = "needs a CUDA GPU"]
fn ragged_rows_on_the_gpu_equal_the_simulator_f32() {
    for (i, &(n, m, k)) in SHAPES.iter().enumerate() {
        let x = Array2::from_shape_vec((n, m), hostile(n, m, i as u64)).unwrap();
        check(x.view(), k, i as u64 + 100);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn ragged_rows_on_the_gpu_equal_the_simulator_f16_bf16() {
    for (i, &(n, m, k)) in SHAPES.iter().enumerate() {
        let v = hostile(n, m, i as u64 + 7);
        let h = Array2::from_shape_vec((n, m), v.iter().map(|&f| f16::from_f32(f)).collect());
        check(h.unwrap().view(), k, i as u64 + 200);
        let b = Array2::from_shape_vec((n, m), v.iter().map(|&f| bf16::from_f32(f)).collect());
        check(b.unwrap().view(), k, i as u64 + 300);
    }
}

/// Full lengths and one k per row: the plain launch's answer and counts, bit for bit.
#[test]
#[ignore = "needs a CUDA GPU"]
fn full_lengths_on_the_gpu_are_the_plain_launch() {
    let (n, m, k) = (64, 3000, 50);
    let x = Array2::from_shape_vec((n, m), hostile(n, m, 9)).unwrap();
    let plain = Request::builder("cuda").k(k).iterations(true).build().unwrap();
    let plain = select(x.view(), &plain).unwrap();
    let ragged = request("cuda", &vec![m; n], &vec![k; n], Options::default(), true);
    let ragged = select(x.view(), &ragged).unwrap();
    assert_eq!(ragged.topk.indices, plain.topk.indices);
    assert_eq!(bits(&ragged.topk.values), bits(&plain.topk.values));
    assert_eq!(ragged.topk.iterations, plain.topk.iterations);
}

/// Few long rows of their own length (docs/kernel.md, "Split rows"): warp-row and block-row
/// chunks, k from 64 to 2048, lengths 0, M and random (a length below k included).
const SPLIT_SHAPES: [(usize, usize, usize); 4] =
    [(4, 300_000, 2048), (3, 70_000, 2048), (8, 40_000, 300), (2, 200_000, 64)];

/// Without counts the rows split (as plain rows of the shape do): cuda against sim (both
/// split) and the oracle, both modes, sorted and not.
fn check_split<E: Float>(x: ArrayView2<'_, E>, kmax: usize, seed: u64) {
    let (n, m) = x.dim();
    let (lengths, ks) = shape(n, m, kmax, seed);
    let launch = rtopk_plan::Launch {
        n,
        m,
        k: kmax,
        mode: Mode::Largest,
        bisect: topk_ref::Bisect::exact(),
        sorted: false,
        elem: rtopk_plan::ElemType::F32,
    };
    let h100 = rtopk_plan::DeviceLimits::preset("h100").unwrap();
    let both = rtopk_plan::Ragged { lengths: true, k_per_row: true };
    let split = rtopk_plan::program_ragged(&launch, &h100, rtopk_plan::Strategy::Auto, false, both);
    assert_eq!(split.unwrap().depth, 1, "N={n} M={m} K={kmax} splits");
    for (smallest, sorted) in [(false, false), (true, false), (false, true), (true, true)] {
        let opts = Options { mode: Mode::from_smallest(smallest), sorted };
        let what = format!("{} N={n} M={m} K={kmax} smallest={smallest} sorted={sorted}", E::NAME);
        let cuda = select(x, &request("cuda", &lengths, &ks, opts, false)).unwrap();
        let sim = select(x, &request("sim", &lengths, &ks, opts, false)).unwrap();
        same(&cuda, &sim, &what);
        let rows = Rows::per_row_k(&ks).with_lengths(&lengths);
        let want = canonical_ragged(x, &rows, opts).unwrap();
        assert_eq!(cuda.topk.indices, want.indices, "{what}: oracle");
        assert_eq!(bits(&cuda.topk.values), bits(&want.values), "{what}: oracle values");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn split_ragged_rows_on_the_gpu_equal_the_simulator_f32() {
    for (i, &(n, m, k)) in SPLIT_SHAPES.iter().enumerate() {
        let x = Array2::from_shape_vec((n, m), hostile(n, m, 40 + i as u64)).unwrap();
        check_split(x.view(), k, 500 + i as u64);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn split_ragged_rows_on_the_gpu_equal_the_simulator_f16_bf16() {
    for (i, &(n, m, k)) in SPLIT_SHAPES.iter().enumerate().skip(1) {
        let v = hostile(n, m, 60 + i as u64);
        let h = Array2::from_shape_vec((n, m), v.iter().map(|&f| f16::from_f32(f)).collect());
        check_split(h.unwrap().view(), k, 600 + i as u64);
        let b = Array2::from_shape_vec((n, m), v.iter().map(|&f| bf16::from_f32(f)).collect());
        check_split(b.unwrap().view(), k, 700 + i as u64);
    }
}
