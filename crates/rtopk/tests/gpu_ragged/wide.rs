//! 64-bit rows (docs/kernel.md, "64-bit rows") on the GPU: f64 and i64 rows take
//! `rtopk_wide_rows` (one warp per row on 64-bit keys, every register width and the rows past
//! them re-keyed from the input), and the `cuda` kernel gives the simulated kernel's answer and
//! topk-ref's `bisect`'s bit for bit — indices, value bits and iteration counts — with and
//! without counts, on rows built to break it (NaN of both signs and payloads, ±inf, ±0,
//! subnormals, the f64 and i64 ends, values an f32 cannot tell apart, heavy ties), both modes,
//! sorted or not, exact (the oracle's answer too), early stopping, a precision and a recall
//! target; shapes of up to and past 256 elements (every unit width), not multiples of 32, row
//! counts not multiples of the block's four warps, k from 1 to M and a large k (1 × 5000,
//! k = 2000). A ragged 64-bit request is the plan's typed error. Needs a CUDA GPU:
//! `cargo test -p rtopk --release --test gpu_ragged -- --ignored wide`.

use ndarray::{Array2, ArrayView2};
use rtopk::cuda::CudaError;
use rtopk::{
    Error, K, KernelElement, Mode, Options, Precision, Recall, Request, RequestBuilder, Selection,
    select,
};

use super::{bits, same};

/// The next value of a deterministic 64-bit generator (splitmix64).
fn next(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A deterministic `(n, m)` f64 matrix of hostile values: NaN of both signs with payloads
/// (quiet and signalling), ±inf, ±0, subnormals of both signs, the ends, heavy ties, values
/// one ulp apart and values equal as f32 but not as f64, spread over many exponents.
fn hostile_f64(n: usize, m: usize, seed: u64) -> Array2<f64> {
    let specials = [
        f64::NAN,
        f64::from_bits(0xFFF8_0000_0000_1234), // -NaN with a payload
        f64::from_bits(0x7FF0_0000_0000_0001), // signalling, with a payload
        f64::from_bits(0xFFF4_0000_0000_0007),
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        f64::from_bits(1),
        f64::from_bits(0x8000_0000_0000_0003),
        f64::from_bits(0x000F_FFFF_FFFF_FFFF), // the largest subnormal
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
    ];
    let mut s = seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0xF64;
    Array2::from_shape_simple_fn((n, m), || {
        let r = next(&mut s);
        match r % 16 {
            0 | 1 => specials[(r >> 8) as usize % specials.len()],
            2..=5 => ((r >> 8) % 7) as f64 - 3.0, // heavy ties
            // equal in f32, apart in f64: 1 + j 2^-40
            6 | 7 => 1.0 + ((r >> 8) % 64) as f64 * (-40f64).exp2(),
            8 => f64::from_bits(0x3FF0_0000_0000_0000 + (r >> 8) % 5), // one ulp apart
            9 => f64::from_bits((r >> 12) | ((r & 1) << 63)),          // subnormals, both signs
            // any finite value: a random sign, exponent and mantissa
            _ => {
                let v = f64::from_bits((r & !(0x7FF << 52)) | (((r >> 20) % 0x7FF) << 52));
                if v.is_finite() { v } else { 0.5 }
            }
        }
    })
}

/// A deterministic `(n, m)` i64 matrix of hostile values: the ends and their neighbours, 0
/// and ±1, heavy ties, values apart in their low bits only, any 64 bits.
fn hostile_i64(n: usize, m: usize, seed: u64) -> Array2<i64> {
    let specials = [i64::MIN, i64::MIN + 1, -1, 0, 1, i64::MAX - 1, i64::MAX, 1 << 62, -(1 << 40)];
    let mut s = seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0x164;
    Array2::from_shape_simple_fn((n, m), || {
        let r = next(&mut s);
        match r % 16 {
            0 | 1 => specials[(r >> 8) as usize % specials.len()],
            2..=5 => ((r >> 8) % 7) as i64 - 3, // heavy ties
            6 | 7 => (1i64 << 40) + ((r >> 8) % 64) as i64, // apart in the low bits only
            8 => (r >> (r % 63)) as i64 * if r & 2 == 0 { 1 } else { -1 },
            _ => r as i64,
        }
    })
}

/// A search: its name and what it adds to a request.
type Search = (&'static str, fn(RequestBuilder) -> RequestBuilder);

/// The searches checked: exact, early stopping after 1, 3 and 12 steps, a precision and a
/// recall target.
fn searches() -> Vec<Search> {
    vec![
        ("exact", |b| b),
        ("max_iter 1", |b| b.max_iter(1)),
        ("max_iter 3", |b| b.max_iter(3)),
        ("max_iter 12", |b| b.max_iter(12)),
        ("precision 1e-3", |b| b.precision(Precision::new(1e-3).unwrap())),
        ("recall 0.9", |b| b.recall(Recall::new(0.9).unwrap())),
    ]
}

/// `cuda` with counts against `sim` with counts and `bisect` (indices, value bits, iteration
/// counts), `cuda` without counts against them too (values and indices: the wide rows are
/// never split), and exact searches against the oracle (`heap`); every search of
/// [`searches`] (the first `searches` of them), both modes, sorted or not. How many
/// comparisons ran.
fn agree<E: KernelElement>(x: ArrayView2<'_, E>, k: usize, searches_run: usize) -> usize {
    let mut compared = 0;
    for (name, search) in searches().into_iter().take(searches_run) {
        for (smallest, sorted) in [(false, false), (true, false), (false, true), (true, true)] {
            let opts = Options { mode: Mode::from_smallest(smallest), sorted };
            let what = format!("{} {:?} k={k} {name} {opts:?}", E::NAME, x.dim());
            let run = |algo: &str, counts: bool| -> Selection<E> {
                let b = search(Request::builder(algo).k(k).options(opts).iterations(counts));
                select(x, &b.build().unwrap()).unwrap_or_else(|e| panic!("{algo}, {what}: {e}"))
            };
            let cuda = run("cuda", true);
            assert!(cuda.topk.iterations.is_some(), "{what}: counts asked for");
            same(&cuda, &run("sim", true), &format!("sim, {what}"));
            same(&cuda, &run("bisect", true), &format!("bisect, {what}"));
            let uncounted = run("cuda", false);
            assert_eq!(uncounted.topk.indices, cuda.topk.indices, "without counts, {what}");
            assert_eq!(bits(&uncounted.topk.values), bits(&cuda.topk.values), "{what}");
            if name == "exact" {
                let want = run("heap", false);
                assert_eq!(cuda.topk.indices, want.topk.indices, "oracle, {what}");
                assert_eq!(bits(&cuda.topk.values), bits(&want.topk.values), "oracle, {what}");
            }
            compared += 1;
        }
    }
    compared
}

/// k of 1, M / 3, M - 1 and M (those in range, once each).
fn ks(m: usize) -> Vec<usize> {
    let mut ks: Vec<usize> =
        [1, m / 3, m.saturating_sub(1), m].into_iter().filter(|k| (1..=m).contains(k)).collect();
    ks.dedup();
    ks
}

/// Shapes (N, M): rows of one to 256 elements (the narrowest unit), 257 to 1024 (the wider
/// ones), past 1024 (re-keyed from the input on each pass); M not a multiple of 32, N not a
/// multiple of the block's four warps (a partial last block), and many blocks.
const SHAPES: [(usize, usize); 15] = [
    (37, 1),
    (33, 7),
    (70, 32),
    (41, 33),
    (35, 100),
    (9, 256),
    (10, 257),
    (7, 500),
    (6, 700),
    (5, 1000),
    (3, 1025),
    (3, 3001),
    (2, 10_001),
    (1001, 64),
    (1, 5000),
];

fn check_every_shape<E: KernelElement>(matrix: fn(usize, usize, u64) -> Array2<E>) -> usize {
    let mut compared = 0;
    for (si, &(n, m)) in SHAPES.iter().enumerate() {
        let x = matrix(n, m, si as u64 + 1);
        // every search on rows of up to a few thousand elements; exact and early stopping on
        // the longest (the simulator's time)
        let searches_run = if n * m > 20_000 { 2 } else { searches().len() };
        for k in ks(m) {
            compared += agree(x.view(), k, searches_run);
        }
    }
    // a large k of a long row (the selection's and the sort's many rounds)
    let x = matrix(1, 5000, 99);
    compared += agree(x.view(), 2000, searches().len());
    compared
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn f64_rows_on_the_gpu_equal_the_simulator_and_bisect() {
    let compared = check_every_shape(hostile_f64);
    assert!(compared >= 900, "only {compared} comparisons ran");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn i64_rows_on_the_gpu_equal_the_simulator_and_bisect() {
    let compared = check_every_shape(hostile_i64);
    assert!(compared >= 900, "only {compared} comparisons ran");
}

/// Rows of one value repeated, of NaN only, of the i64 ends only: the search ends at once or
/// never narrows, and the lowest indices win.
#[test]
#[ignore = "needs a CUDA GPU"]
fn degenerate_64_bit_rows_on_the_gpu_equal_bisect() {
    let mut compared = 0;
    for (n, m) in [(5, 1), (6, 100), (3, 2000)] {
        for v in [0.0, -0.0, f64::NAN, f64::from_bits(0xFFF8_0000_0000_0001), f64::INFINITY] {
            compared += agree(Array2::from_elem((n, m), v).view(), m.div_ceil(2), 3);
        }
        let ends =
            Array2::from_shape_fn(
                (n, m),
                |(r, c)| {
                    if (r + c) % 3 == 0 { i64::MIN } else { i64::MAX }
                },
            );
        compared += agree(ends.view(), m.div_ceil(2), 3);
    }
    assert!(compared >= 200, "only {compared} comparisons ran");
}

/// Rows of their own length, a k per row or hints on 64-bit rows: the plan's typed refusal
/// (the wide rows take plain requests only) — from the door before the GPU is touched, and
/// from the GPU's own plan on its host path — never a panic, never an answer.
#[test]
#[ignore = "needs a CUDA GPU"]
fn ragged_64_bit_requests_on_the_gpu_are_the_plans_typed_error() {
    let x = hostile_f64(6, 300, 5);
    let l = hostile_i64(6, 300, 6);
    let base = || Request::builder("cuda").k(4);
    let requests = [
        base().lengths(vec![300, 0, 17, 300, 1, 299]),
        Request::builder("cuda").k_of(K::PerRow(vec![1, 2, 3, 4, 5, 0])),
        base().hint(vec![0.5; 6]),
        base().hint(vec![0.5; 6]).threshold(true).iterations(true),
    ];
    for r in requests {
        let r = r.build().unwrap();
        for e in [select(x.view(), &r).unwrap_err(), select(l.view(), &r).unwrap_err()] {
            assert!(matches!(e, Error::Cuda(CudaError::Wide { .. })), "{e}");
            assert!(e.is_user_error(), "{e}");
            assert!(e.to_string().contains("own length"), "{e}");
        }
    }
    // the GPU's own plan, past the door: the same refusal (and the device still works)
    let gpu = rtopk::cuda::shared_device(0).expect("a CUDA device");
    let lengths = vec![300u32, 0, 17, 300, 1, 299];
    let rows = rtopk_cuda::HostRows { lengths: Some(&lengths), ..Default::default() };
    let how = (Options::default(), topk_ref::Bisect::exact(), rtopk_cuda::Strategy::Auto, true);
    let e = gpu.topk_rows_ragged(x.view(), 4, how, rows).unwrap_err();
    assert!(matches!(e, CudaError::Wide { elem: "float64", .. }), "{e}");
    let e = gpu.topk_rows_ragged(l.view(), 4, how, rows).unwrap_err();
    assert!(matches!(e, CudaError::Wide { elem: "int64", .. }), "{e}");
    let plain = gpu.topk_rows_ragged(x.view(), 4, how, rtopk_cuda::HostRows::default()).unwrap();
    let want = select(x.view(), &Request::new("heap", 4).unwrap()).unwrap();
    assert_eq!(plain.indices, want.topk.indices);
}
