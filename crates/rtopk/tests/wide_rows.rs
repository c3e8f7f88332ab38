//! 64-bit rows (docs/kernel.md, "64-bit rows") through the door's `sim` on the CPU: f64 and i64
//! matrices run the simulated wide rows (`rtopk_wide_rows_<EPL>`, every width and rows past
//! them), with topk-ref `bisect`'s answer bit for bit — indices, value bits and iteration
//! counts (docs/contract.md §3) — exact, with early stopping, a precision or a recall target,
//! both modes, sorted or not, on hostile rows (NaN of both signs and payloads, ±inf, ±0,
//! subnormals, the ends, heavy ties, values an f32 cannot tell apart), and no simulator
//! finding. A ragged 64-bit request on the kernel (`sim`, `cuda`) is the launch plan's typed
//! refusal, found before any device or simulation is touched (this machine needs no GPU).
//! The GPU's side of the same checks: `tests/gpu_ragged/wide.rs`.

use ndarray::{Array2, ArrayView2};
use proptest::prelude::*;
use rtopk::cuda::{CudaError, RawBuffers, Shape, check_raw};
use rtopk::{
    Dtype, Element, Error, K, Mode, Options, Place, Precision, Recall, Request, RequestBuilder,
    Selection, Value, select,
};
use topk_ref::KeyBits;

fn bits<E: Element>(a: &Array2<E>) -> Vec<u64> {
    a.iter().map(|v| v.to_bits().to_u64()).collect()
}

/// The search of `which`: exact, early stopping after `steps`, a precision, a recall target.
fn search(b: RequestBuilder, which: u8, steps: u32) -> RequestBuilder {
    match which % 4 {
        0 => b,
        1 => b.max_iter(steps),
        2 => b.precision(Precision::new(1e-3).unwrap()),
        _ => b.recall(Recall::new(0.75).unwrap()),
    }
}

/// `sim` against `bisect` on `x`: indices, value bits, iteration counts; the wide rows ran,
/// without a finding; an exact search is the oracle's (`heap`) answer too.
fn sim_is_bisect<E: Value>(x: ArrayView2<'_, E>, k: usize, opts: Options, which: u8, steps: u32) {
    let what = format!("{} {:?} k={k} {opts:?} search {which} steps {steps}", E::NAME, x.dim());
    let run = |algo: &str| -> Selection<E> {
        let b = Request::builder(algo).k(k).options(opts).iterations(algo != "heap");
        select(x, &search(b, which, steps).build().unwrap())
            .unwrap_or_else(|e| panic!("{algo}: {what}: {e}"))
    };
    let (sim, cpu) = (run("sim"), run("bisect"));
    assert_eq!(sim.topk.indices, cpu.topk.indices, "indices, {what}");
    assert_eq!(bits(&sim.topk.values), bits(&cpu.topk.values), "value bits, {what}");
    assert_eq!(sim.topk.iterations, cpu.topk.iterations, "iterations, {what}");
    assert!(sim.topk.iterations.is_some(), "{what}: counts asked for");
    if x.nrows() > 0 && k > 0 {
        let d = sim.diagnostics.expect("the simulator's findings");
        assert!(d.kernel.starts_with("rtopk_wide_rows"), "{what}: {}", d.kernel);
        assert!(d.is_clean(), "{what}: {d}");
    }
    if which % 4 == 0 {
        let want = run("heap");
        assert_eq!(sim.topk.indices, want.topk.indices, "oracle, {what}");
    }
}

/// f64 values to break the search: NaN of both signs and payloads, ±inf, ±0, subnormals, the
/// ends, ties, values one ulp apart and values equal as f32.
fn f64_edges() -> Vec<f64> {
    vec![
        1.5,
        -2.0,
        f64::NAN,
        f64::from_bits(0xFFF8_0000_0000_1234),
        f64::from_bits(0x7FF0_0000_0000_0001),
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        f64::from_bits(1),
        f64::from_bits(0x8000_0000_0000_0003),
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
        1.0 + (-40f64).exp2(),
        1.0,
        f64::from_bits(0x3FF0_0000_0000_0001),
    ]
}

/// i64 values to break the search: the ends and their neighbours, 0, ±1, ties, values apart
/// in their low bits only.
fn i64_edges() -> Vec<i64> {
    vec![3, -3, i64::MIN, i64::MIN + 1, i64::MAX, i64::MAX - 1, 0, -1, 1, 1 << 40, (1 << 40) + 1]
}

/// `(n, m, data)`: up to 5 rows (a partial block of four warps) of up to `max_m` values, drawn
/// from `edges`, two tied values and any bit pattern.
fn matrix_of<T: Value + Arbitrary>(
    edges: Vec<T>,
    max_m: usize,
) -> impl Strategy<Value = (usize, usize, Vec<T>)> {
    let ties = edges.iter().copied().take(2).collect::<Vec<_>>();
    let element = prop_oneof![
        2 => prop::sample::select(edges),
        2 => prop::sample::select(ties),
        3 => any::<T>(),
    ];
    (0usize..6, 1usize..=max_m).prop_flat_map(move |(n, m)| {
        prop::collection::vec(element.clone(), n * m).prop_map(move |d| (n, m, d))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn sim_on_f64_rows_is_bisect(
        (n, m, data) in matrix_of::<f64>(f64_edges(), 300),
        which_k in 1u8..6,
        frac in 0.0f64..1.0,
        smallest in any::<bool>(),
        sorted in any::<bool>(),
        which in any::<u8>(),
        steps in 1u32..70,
    ) {
        let x = Array2::from_shape_vec((n, m), data).unwrap();
        let k = test_support::pick_k(m, which_k, frac).max(1);
        let opts = Options { mode: Mode::from_smallest(smallest), sorted };
        sim_is_bisect(x.view(), k, opts, which, steps);
    }

    #[test]
    fn sim_on_i64_rows_is_bisect(
        (n, m, data) in matrix_of::<i64>(i64_edges(), 300),
        which_k in 1u8..6,
        frac in 0.0f64..1.0,
        smallest in any::<bool>(),
        sorted in any::<bool>(),
        which in any::<u8>(),
        steps in 1u32..70,
    ) {
        let x = Array2::from_shape_vec((n, m), data).unwrap();
        let k = test_support::pick_k(m, which_k, frac).max(1);
        let opts = Options { mode: Mode::from_smallest(smallest), sorted };
        sim_is_bisect(x.view(), k, opts, which, steps);
    }
}

/// A deterministic value of the hostile set, or any bits (`r`: a hash of the place).
fn hostile<T: Copy>(edges: &[T], r: u64, any: impl Fn(u64) -> T) -> T {
    if r % 3 == 0 { edges[(r >> 8) as usize % edges.len()] } else { any(r) }
}

fn mix(i: usize, seed: u64) -> u64 {
    let mut z = (i as u64 ^ seed.rotate_left(32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z ^ (z >> 27)
}

/// Every unit width of the wide rows (8, 16, 24 and 32 keys per lane: rows of up to 256, 512,
/// 768 and 1024) and rows past them, k of 1, M − 1, M and a large one, every search, both
/// modes and orders: `sim` is `bisect`.
#[test]
fn sim_is_bisect_on_every_width_of_the_wide_rows() {
    let (f, i) = (f64_edges(), i64_edges());
    let mut ran = 0;
    for (si, &(n, m)) in
        [(5, 33), (3, 256), (2, 257), (2, 600), (1, 800), (1, 1025), (1, 3001)].iter().enumerate()
    {
        let seed = si as u64;
        let xf = Array2::from_shape_fn((n, m), |(r, c)| {
            hostile(&f, mix(r * m + c, seed), |h| f64::from_bits(h.rotate_left(17)))
        });
        let xi = Array2::from_shape_fn((n, m), |(r, c)| {
            hostile(&i, mix(r * m + c, seed + 50), |h| (h >> (h % 64)) as i64)
        });
        for k in [1, m / 3, m - 1, m].into_iter().filter(|&k| k >= 1) {
            for (which, steps) in [(0, 0), (1, 2), (1, 40), (2, 0), (3, 0)] {
                for (smallest, sorted) in [(false, false), (true, true)] {
                    let opts = Options { mode: Mode::from_smallest(smallest), sorted };
                    sim_is_bisect(xf.view(), k, opts, which, steps);
                    sim_is_bisect(xi.view(), k, opts, which, steps);
                    ran += 2;
                }
            }
        }
    }
    assert!(ran >= 250, "{ran} cases");
}

/// Rows of their own length, a k per row or hints on f64 and i64 rows: the kernel's plan does
/// not take them yet, and says so with a typed error — `sim`: the simulator's refused launch,
/// `cuda`: [`CudaError::Wide`] (before any GPU is looked for) — never a panic or an answer;
/// the CPU algorithms take them as ever. On device buffers the threshold output is refused
/// too, by the checks that run before a device is opened.
#[test]
fn ragged_64_bit_requests_on_the_kernel_are_the_plans_typed_error() {
    let xf = Array2::from_shape_fn((4, 50), |(r, c)| (r * 50 + c) as f64 * 0.5 - 30.0);
    let xi = xf.mapv(|v| (v * 4.0) as i64 - (1 << 50));
    let builders: [fn(&str) -> RequestBuilder; 3] = [
        |a| Request::builder(a).k(3).lengths(vec![50, 0, 7, 49]),
        |a| Request::builder(a).k_of(K::PerRow(vec![1, 0, 5, 50])),
        |a| Request::builder(a).k(3).hint(vec![1.0, f32::NAN, -3.0, 0.0]).iterations(true),
    ];
    for build in builders {
        for algo in ["sim", "cuda"] {
            let r = build(algo).build().unwrap();
            let errors = [select(xf.view(), &r).unwrap_err(), select(xi.view(), &r).unwrap_err()];
            for (e, dtype) in errors.into_iter().zip(["float64", "int64"]) {
                match (&e, algo) {
                    (Error::Sim(_), "sim") | (Error::Cuda(CudaError::Wide { .. }), "cuda") => {}
                    _ => panic!("{algo} {dtype}: {e:?}"),
                }
                let text = e.to_string();
                assert!(text.contains(dtype) && text.contains("own length"), "{text}");
                assert!(e.is_user_error(), "{e}");
            }
        }
        // a CPU algorithm takes them
        let r = build("bisect").build().unwrap();
        assert!(select(xf.view(), &r).is_ok() && select(xi.view(), &r).is_ok());
    }
    // the threshold output of a plain request on host rows is read off the selection
    let r = Request::builder("sim").k(3).threshold(true).build().unwrap();
    let t = select(xf.view(), &r).unwrap().threshold.unwrap();
    assert_eq!(t.to_vec(), [-6.5, 18.5, 43.5, 68.5]);
    // device buffers: checked before any device is opened
    let shape = |dtype| Shape { n: 4, m: 50, dtype };
    let bufs = RawBuffers { x: 16, values: 32, indices: 48, ..RawBuffers::default() };
    let on_gpu = || Request::builder("cuda").k(3).place(Place::Cuda(0));
    for dtype in [Dtype::Float64, Dtype::Int64] {
        assert!(check_raw(&on_gpu().build().unwrap(), shape(dtype), bufs).is_ok(), "{dtype}");
        let thr = on_gpu().threshold(true).build().unwrap();
        let e = check_raw(&thr, shape(dtype), RawBuffers { threshold: 64, ..bufs }).unwrap_err();
        assert!(matches!(e, Error::Cuda(CudaError::Wide { .. })), "{dtype}: {e}");
        let lengths = on_gpu().lengths(vec![50, 1, 2, 3]).build().unwrap();
        let e = check_raw(&lengths, shape(dtype), RawBuffers { lengths: 64, ..bufs }).unwrap_err();
        assert!(matches!(e, Error::Cuda(CudaError::Wide { .. })), "{dtype}: {e}");
        // the 32-bit-key types take both
        let e = check_raw(&thr, shape(Dtype::Int32), RawBuffers { threshold: 64, ..bufs });
        assert!(e.is_ok(), "{e:?}");
    }
}
